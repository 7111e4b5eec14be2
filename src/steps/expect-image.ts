import { basename, extname } from 'node:path';
import type { GoldenOutcome } from '../compare/golden.js';
import { DEFAULT_THRESHOLD } from '../compare/tolerance.js';
import type { Rect } from '../image/rgba.js';
import type { ImageAssertion, Tolerance } from '../result/result.js';
import { showFile } from './describe.js';
import type { StepOutcome, StepRunContext } from './run-context.js';
import { object, ref } from './schema-defs.js';
import { captureSize, checkSize } from './screenshot.js';
import type { StepDefinition } from './step-definition.js';
import type { WindowAddress } from './window-address.js';
import { capture } from './window-handle.js';

/** A tolerance as the playbook and the plan spell it. */
export interface ToleranceArgs {
  threshold: number;
  max_diff_pixels?: number;
  max_diff_ratio?: number;
}

export interface ExpectImageArgs extends ToleranceArgs {
  of: WindowAddress;
  golden: string;
  masks: Rect[];
  regions: (Rect & ToleranceArgs)[];
  stable: boolean;
  width?: number;
  height?: number;
}

const TOLERANCE = {
  threshold: ref('threshold'),
  max_diff_pixels: ref('max_diff_pixels'),
  max_diff_ratio: ref('max_diff_ratio'),
};
const RECT = {
  x: { description: 'Left edge, in pixels from the left.', type: 'integer', minimum: 0 },
  y: { description: 'Top edge, in pixels from the top.', type: 'integer', minimum: 0 },
  width: { description: 'Width in pixels.', type: 'integer', minimum: 1 },
  height: { description: 'Height in pixels.', type: 'integer', minimum: 1 },
};

/** What `defaults: { expect_image: … }` may set. */
export const EXPECT_IMAGE_DEFAULTS = object(
  {
    ...TOLERANCE,
    stable: { description: 'Capture until two captures in a row are identical before comparing.', type: 'boolean' },
  },
  [],
  { description: 'Defaults of every expect_image step.' },
);

export const expectImage: StepDefinition<'expect_image', ExpectImageArgs> = {
  kind: 'expect_image',
  soft: true,
  summary: 'Compare a fresh capture with a golden image, within a tolerance.',
  schema: object(
    {
      of: ref('window'),
      golden: {
        description: 'The expected image; written on first run when missing (not in CI).',
        type: 'string',
        minLength: 1,
      },
      ...TOLERANCE,
      masks: { description: 'Pixel rectangles to ignore.', type: 'array', items: ref('rect') },
      regions: {
        description: 'Rectangles with their own tolerance.',
        type: 'array',
        items: object({ ...RECT, ...TOLERANCE }, ['x', 'y', 'width', 'height']),
      },
      stable: {
        description: 'Capture until two captures in a row are identical before comparing.',
        type: 'boolean',
        default: false,
      },
      width: ref('size'),
      height: ref('size'),
    },
    ['of', 'golden'],
  ),
  compile(raw, ctx) {
    type Raw = Partial<ToleranceArgs> & {
      of: string;
      golden: string;
      masks?: Rect[];
      regions?: (Rect & Partial<ToleranceArgs>)[];
      stable?: boolean;
      width?: number;
      height?: number;
    };
    const r = raw as Raw;
    const d = ctx.defaults as Partial<ToleranceArgs> & { stable?: boolean };
    const of = ctx.window(r.of, ['of'], ['app', 'editor', 'window']) ?? { target: 'app', address: 'app' };
    checkSize(r, ctx);
    const tolerance = pickTolerance(r, pickTolerance(d, { threshold: DEFAULT_THRESHOLD }));
    return {
      of,
      golden: ctx.resolvePath(r.golden),
      ...tolerance,
      masks: r.masks ?? [],
      regions: (r.regions ?? []).map((g) => ({
        x: g.x,
        y: g.y,
        width: g.width,
        height: g.height,
        ...pickTolerance(g, tolerance),
      })),
      stable: r.stable ?? d.stable ?? false,
      ...(r.width !== undefined ? { width: r.width } : {}),
      ...(r.height !== undefined ? { height: r.height } : {}),
    };
  },
  async run(a, ctx) {
    // Loaded on first use: validating and planning never need the image code.
    const [{ checkGolden }, { captureStable }] = await Promise.all([
      import('../compare/golden.js'),
      import('../compare/stable.js'),
    ]);
    const grab = async (): Promise<Uint8Array> =>
      (await capture(ctx.client, a.of, { format: 'png', ...captureSize(a), signal: ctx.signal })).bytes;
    const actual = a.stable
      ? (
          await captureStable(grab, {
            timeoutMs: stableBudget(ctx),
            intervalMs: STABLE_INTERVAL_MS,
            signal: ctx.signal,
          })
        ).bytes
      : await grab();
    const golden = await goldenFor(a, ctx);
    const name = basename(golden, extname(golden));
    const outcome = await checkGolden({
      actualPng: actual,
      goldenPath: golden,
      outputDir: ctx.artefactDir,
      name,
      options: {
        ...toTolerance(a),
        masks: a.masks,
        regions: a.regions.map((r, i) => ({
          name: `region ${i + 1}`,
          x: r.x,
          y: r.y,
          width: r.width,
          height: r.height,
          ...toTolerance(r),
        })),
      },
      update: ctx.golden.update,
      ci: ctx.golden.ci,
    });
    if (outcome.notice !== undefined && outcome.status !== 'failed') ctx.notice(outcome.notice);
    return toOutcome(golden === a.golden ? a : { ...a, golden }, outcome, ctx);
  },
  describe(a) {
    const limits = [`threshold ${a.threshold}`];
    if (a.max_diff_pixels !== undefined) limits.push(`≤ ${a.max_diff_pixels} px`);
    if (a.max_diff_ratio !== undefined) limits.push(`≤ ${a.max_diff_ratio * 100}%`);
    if (a.max_diff_pixels === undefined && a.max_diff_ratio === undefined) limits.push('no pixel may differ');
    return `compare ${a.of.address} with ${showFile(a.golden)} (${limits.join(', ')}${a.masks.length ? `, ${a.masks.length} mask${a.masks.length > 1 ? 's' : ''}` : ''}${a.stable ? ', stable' : ''})`;
  },
};

/** Values given here win over the fallback, field by field. */
function pickTolerance(given: Partial<ToleranceArgs>, fallback: ToleranceArgs): ToleranceArgs {
  const t: ToleranceArgs = { threshold: given.threshold ?? fallback.threshold };
  const pixels = given.max_diff_pixels ?? fallback.max_diff_pixels;
  const ratio = given.max_diff_ratio ?? fallback.max_diff_ratio;
  if (pixels !== undefined) t.max_diff_pixels = pixels;
  if (ratio !== undefined) t.max_diff_ratio = ratio;
  return t;
}

/** The plan's spelling to the comparison's. */
function toTolerance(t: ToleranceArgs): Tolerance {
  return {
    threshold: t.threshold,
    ...(t.max_diff_pixels !== undefined ? { maxDiffPixels: t.max_diff_pixels } : {}),
    ...(t.max_diff_ratio !== undefined ? { maxDiffRatio: t.max_diff_ratio } : {}),
  };
}

const STABLE_INTERVAL_MS = 100;

/** The playbook's golden, or where the configuration's template puts it for this workbench. */
async function goldenFor(a: ExpectImageArgs, ctx: StepRunContext): Promise<string> {
  const template = ctx.golden.template;
  if (template === undefined) return a.golden;
  const [{ goldenPath }, provenance] = await Promise.all([import('../compare/golden-template.js'), ctx.provenance()]);
  return goldenPath(template, {
    playbook: provenance.playbook,
    golden: a.golden,
    engineVersion: provenance.engine_version ?? '',
  });
}

/** Settling gets the step's time less a margin, so its own error wins over the step timeout. */
function stableBudget(ctx: StepRunContext): number {
  return Math.max(STABLE_INTERVAL_MS * 2, ctx.timeoutMs - 500);
}

function toOutcome(a: ExpectImageArgs, outcome: GoldenOutcome, ctx: StepRunContext): StepOutcome {
  const c = outcome.comparison;
  const image: ImageAssertion = {
    golden: a.golden,
    outcome:
      outcome.status === 'written' ? 'written' : outcome.status === 'updated' ? 'updated' : (c?.kind ?? 'different'),
    message: c?.message ?? outcome.notice ?? '',
    ...(c ? { diffPixels: c.diffPixels, diffRatio: c.diffRatio, totalPixels: c.totalPixels } : {}),
    ...(c ? { tolerance: c.tolerance } : {}),
    ...(c?.actualSize ? { actualSize: c.actualSize } : {}),
    ...(c?.expectedSize ? { expectedSize: c.expectedSize } : {}),
  };
  const artefacts = [
    ...(outcome.status === 'written' || outcome.status === 'updated' ? [ctx.artefact(a.golden, 'golden')] : []),
    ...(outcome.artefacts.expected ? [ctx.artefact(outcome.artefacts.expected, 'expected')] : []),
    ...(outcome.artefacts.actual ? [ctx.artefact(outcome.artefacts.actual, 'actual')] : []),
    ...(outcome.artefacts.diff ? [ctx.artefact(outcome.artefacts.diff, 'diff')] : []),
  ];
  if (outcome.status !== 'failed') return { status: 'passed', image, artefacts };
  const missing = c === undefined;
  return {
    status: 'failed',
    image,
    artefacts,
    failure: {
      code: missing ? 'GOLDEN_MISSING' : c.kind === 'size-mismatch' ? 'IMAGE_SIZE_MISMATCH' : 'IMAGE_MISMATCH',
      message: missing
        ? (outcome.notice ?? `golden ${a.golden} is missing`)
        : `${a.of.address} differs from ${basename(a.golden)}: ${c.message}`,
      ...(missing
        ? {}
        : {
            hint: 'open the HTML report to see expected, actual and diff; if the change is intended, run with --update-goldens=changed',
          }),
    },
  };
}
