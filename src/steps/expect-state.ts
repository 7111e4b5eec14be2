import { suggestion } from '../diagnostics/did-you-mean.js';
import { showNode } from './describe.js';
import type { StepRunContext } from './run-context.js';
import { isLevelWindowPreset, LEVEL_WINDOW_PRESETS } from '../client/level-window.js';
import { propertyKeyProblem } from '../client/property-classes.js';
import { object, ref } from './schema-defs.js';
import { placeholder } from './slice.js';
import type { NodeRef, StepCompileContext, StepDefinition } from './step-definition.js';
import type { WindowAddress } from './window-address.js';
import { windowHandle } from './window-handle.js';

type Win = Extract<WindowAddress, { target: 'window' }>;

export type StateTarget =
  | { kind: 'position' }
  | { kind: 'time' }
  | { kind: 'camera'; window: Win }
  | { kind: 'slice'; window: Win }
  | { kind: 'window'; window: Win }
  | { kind: 'node'; node: NodeRef; window?: Win };

export interface ExpectStateArgs {
  of: StateTarget;
  /** A partial object: only the fields given are compared. */
  equals: Record<string, unknown>;
  /** Largest difference allowed between numbers. */
  tolerance: number;
}

/** Floating-point noise of a round trip through the workbench passes; real differences do not. */
export const DEFAULT_STATE_TOLERANCE = 1e-6;

/** The fields each state has, as the service interface names them. */
const FIELDS: Record<StateTarget['kind'], readonly string[]> = {
  position: ['position', 'bounds'],
  time: ['timepoint_ms', 'timestep', 'bounds'],
  camera: ['position', 'focal_point', 'view_up', 'parallel_scale', 'perspective_angle'],
  slice: ['step', 'position', 'bounds'],
  window: [
    'id',
    'kind',
    'view_direction',
    'has_camera',
    'has_selected_slice',
    'display_name',
    'links',
    'has_selected_position',
  ],
  node: [
    'name',
    'visible',
    'opacity',
    'color',
    'parent',
    'data_type',
    'level_window',
    'colormap',
    'interpolation',
    'properties',
  ],
};

export const expectState: StepDefinition<'expect_state', ExpectStateArgs> = {
  kind: 'expect_state',
  soft: true,
  summary:
    'Check workbench state: position, time, <window>/camera, <window>/slice, <window> or node:<ref> (any of its properties, optionally as one window sees them).',
  schema: object(
    {
      of: {
        description: '`position`, `time`, `<window>/camera`, `<window>/slice`, `<window>` or `node:<ref>`.',
        type: 'string',
        minLength: 1,
      },
      equals: {
        description: 'The expected fields; fields left out are not compared.',
        type: 'object',
        minProperties: 1,
      },
      tolerance: {
        description: 'Largest difference allowed between numbers (default 1e-6).',
        type: 'number',
        minimum: 0,
      },
      window: {
        ...ref('window'),
        description:
          "For `node:<ref>`: the node's properties as this window sees them (its own values, else the node's).",
      },
    },
    ['of', 'equals'],
  ),
  compile(raw, ctx) {
    const r = raw as { of: string; equals: Record<string, unknown>; tolerance?: number; window?: string };
    let of = target(r.of, ctx);
    if (r.window !== undefined) {
      const window = ctx.window(r.window, ['window'], ['window']);
      if (of.kind !== 'node')
        ctx.keyError('EXCLUSIVE_FIELDS', ['window'], '`window` goes with `of: node:<ref>` only', 'remove `window`');
      else of = { ...of, window: window?.target === 'window' ? window : placeholder(r.window) };
    }
    const props = r.equals.properties;
    if (of.kind === 'node' && props !== undefined) {
      if (props === null || typeof props !== 'object' || Array.isArray(props))
        ctx.error('WRONG_TYPE', ['equals', 'properties'], '`properties` is a map of property keys to values');
      else
        for (const key of Object.keys(props)) {
          const problem = propertyKeyProblem(key);
          if (problem !== undefined)
            ctx.keyError('BAD_VALUE', ['equals', 'properties', key], `property key ${JSON.stringify(key)}: ${problem}`);
        }
    }
    const allowed = FIELDS[of.kind];
    for (const key of Object.keys(r.equals)) {
      if (!allowed.includes(key)) {
        ctx.keyError(
          'UNKNOWN_FIELD',
          ['equals', key],
          `\`${of.kind}\` state has no field \`${key}\``,
          suggestion(key, allowed, `its fields are ${allowed.join(', ')}`),
        );
      }
    }
    // A level window may be expected by preset name: compared as its level and window.
    const lw = r.equals.level_window;
    const equals =
      of.kind === 'node' && typeof lw === 'string' ? { ...r.equals, level_window: presetValue(lw, ctx) } : r.equals;
    return { of, equals, tolerance: r.tolerance ?? DEFAULT_STATE_TOLERANCE };
  },
  async run(a, ctx) {
    const { actual, resolved } = await readState(a.of, a.equals, ctx);
    const equals =
      a.of.kind === 'node' && typeof a.equals.parent === 'string'
        ? { ...a.equals, parent: await ctx.resolveNode({ ref: a.equals.parent }) }
        : a.equals;
    const mismatches = Object.entries(equals).flatMap(([key, want]) =>
      differences(key, want, actual[key], a.tolerance),
    );
    const resolvedArgs = { ...a, ...(resolved ? { of: resolved } : {}), equals };
    if (mismatches.length === 0) return { status: 'passed', resolvedArgs };
    return {
      status: 'failed',
      resolvedArgs,
      failure: {
        code: 'STATE_MISMATCH',
        message: `${this.describe(a)}: ${mismatches.join('; ')}`,
        hint: Object.entries(equals).every(([key, want]) => nearMiss(want, actual[key], a.tolerance))
          ? `numbers may differ by at most ${a.tolerance} (set \`tolerance\` to allow more)`
          : 'the workbench shows another value: correct `equals`, or the earlier step that sets it',
      },
    };
  },
  describe(a) {
    const what =
      a.of.kind === 'node'
        ? `node ${showNode(a.of.node)}${a.of.window ? ` in ${a.of.window.address}` : ''}`
        : 'window' in a.of
          ? `${a.of.window.address}${a.of.kind === 'window' ? '' : `/${a.of.kind}`}`
          : a.of.kind;
    return `check ${what}: ${Object.keys(a.equals).join(', ')}`;
  },
};

function presetValue(name: string, ctx: StepCompileContext): unknown {
  if (isLevelWindowPreset(name)) return { ...LEVEL_WINDOW_PRESETS[name] };
  const presets = Object.keys(LEVEL_WINDOW_PRESETS);
  ctx.error(
    'BAD_VALUE',
    ['equals', 'level_window'],
    `\`${name}\` is not one of MITK's level-window presets`,
    suggestion(name, presets, `use one of ${presets.join(', ')}, or {level, window}`),
  );
  return name;
}

function target(of: string, ctx: StepCompileContext): StateTarget {
  if (of === 'position' || of === 'time') return { kind: of };
  if (of.startsWith('node:')) {
    const ref = of.slice('node:'.length);
    return { kind: 'node', node: ctx.node(ref, ['of']) ?? { ref } };
  }
  const sub = /^(.*)\/(camera|slice)$/.exec(of);
  const address = sub?.[1] ?? of;
  const window = ctx.window(address, ['of'], ['window']);
  const win: Win = window?.target === 'window' ? window : placeholder(address);
  if (sub?.[2] === 'slice') {
    if (win.kind === '3d')
      ctx.error(
        'SLICE_3D',
        ['of'],
        `\`${win.address}\` is a 3D window and has no slices`,
        'check the slice of a 2D window',
      );
    return { kind: 'slice', window: win };
  }
  return sub?.[2] === 'camera' ? { kind: 'camera', window: win } : { kind: 'window', window: win };
}

/** The state as the service interface names its fields; for a node, its display properties too. */
async function readState(
  of: StateTarget,
  wanted: Record<string, unknown>,
  ctx: StepRunContext,
): Promise<{ actual: Record<string, unknown>; resolved?: StateTarget }> {
  const call = { signal: ctx.signal };
  switch (of.kind) {
    case 'position':
      return { actual: { ...(await ctx.client.rendering.selectedPosition(call)) } };
    case 'time':
      return { actual: { ...(await ctx.client.rendering.time(call)) } };
    case 'camera':
      return { actual: { ...(await windowHandle(ctx.client, of.window).camera(call)) } };
    case 'slice':
      return { actual: { ...(await windowHandle(ctx.client, of.window).selectedSlice(call)) } };
    case 'window':
      return { actual: { ...(await windowHandle(ctx.client, of.window).summary(call)) } };
    case 'node': {
      const uid = await ctx.resolveNode(of.node);
      const { nodeState } = await import('./node-state.js');
      return {
        actual: await nodeState(uid, of, wanted, ctx),
        resolved: { kind: 'node', node: { uid }, ...(of.window ? { window: of.window } : {}) },
      };
    }
  }
}

/** What differs between `want` and `got`, with the path into the value; objects compare only the keys wanted. */
/**
 * Whether every difference is a number slightly off, the only kind a `tolerance` is for: a
 * whole number (a slice, a time step) off by any amount, text, or a number far off is a
 * different state, and a larger tolerance would only hide it.
 */
export function nearMiss(want: unknown, got: unknown, tolerance: number): boolean {
  if (typeof want === 'number' && typeof got === 'number') {
    const delta = Math.abs(want - got);
    if (delta <= tolerance) return true;
    if (Number.isInteger(want) && Number.isInteger(got)) return false;
    return delta <= Math.max(100 * tolerance, 0.01 * Math.abs(want));
  }
  if (Array.isArray(want))
    return Array.isArray(got) && got.length === want.length && want.every((w, i) => nearMiss(w, got[i], tolerance));
  if (want !== null && typeof want === 'object')
    return (
      got !== null &&
      typeof got === 'object' &&
      Object.entries(want).every(([k, w]) => nearMiss(w, (got as Record<string, unknown>)[k], tolerance))
    );
  return want === got;
}

export function differences(path: string, want: unknown, got: unknown, tolerance: number): string[] {
  if (typeof want === 'number' && typeof got === 'number') {
    const delta = Math.abs(want - got);
    return delta <= tolerance ? [] : [`${path}: expected ${want}, got ${got} (off by ${Number(delta.toPrecision(3))})`];
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length)
      return [`${path}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got ?? null)}`];
    const inner = want.flatMap((w, i) => differences(`${path}[${i}]`, w, got[i], tolerance));
    return inner.length === 0 ? [] : [`${path}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`];
  }
  if (want !== null && typeof want === 'object') {
    if (got === null || typeof got !== 'object')
      return [`${path}: expected an object, got ${JSON.stringify(got ?? null)}`];
    return Object.entries(want).flatMap(([k, w]) =>
      differences(`${path}.${k}`, w, (got as Record<string, unknown>)[k], tolerance),
    );
  }
  return want === got ? [] : [`${path}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got ?? null)}`];
}
