import { showFile } from './describe.js';
import { object, ref } from './schema-defs.js';
import { checkSize } from './screenshot.js';
import type { StepDefinition } from './step-definition.js';
import type { WindowAddress } from './window-address.js';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Tolerance {
  /** Per-pixel colour distance (pixelmatch), 0..1. */
  threshold: number;
  max_diff_pixels?: number;
  max_diff_ratio?: number;
}

export interface ExpectImageArgs extends Tolerance {
  of: WindowAddress;
  golden: string;
  masks: Rect[];
  regions: (Rect & Tolerance)[];
  stable: boolean;
  width?: number;
  height?: number;
}

/** pixelmatch's own default: small anti-aliasing and encoder differences pass. */
export const DEFAULT_THRESHOLD = 0.1;

const TOLERANCE = { threshold: ref('threshold'), max_diff_pixels: ref('max_diff_pixels'), max_diff_ratio: ref('max_diff_ratio') };
const RECT = { x: { type: 'integer', minimum: 0 }, y: { type: 'integer', minimum: 0 }, width: { type: 'integer', minimum: 1 }, height: { type: 'integer', minimum: 1 } };

/** What `defaults: { expect_image: … }` may set. */
export const EXPECT_IMAGE_DEFAULTS = object({ ...TOLERANCE, stable: { type: 'boolean' } });

export const expectImage: StepDefinition<'expect_image', ExpectImageArgs> = {
  kind: 'expect_image',
  summary: 'Compare a fresh capture with a golden image, within a tolerance.',
  schema: object(
    {
      of: ref('window'),
      golden: { description: 'The expected image; written on first run when missing (not in CI).', type: 'string', minLength: 1 },
      ...TOLERANCE,
      masks: { description: 'Pixel rectangles to ignore.', type: 'array', items: ref('rect') },
      regions: { description: 'Rectangles with their own tolerance.', type: 'array', items: object({ ...RECT, ...TOLERANCE }, ['x', 'y', 'width', 'height']) },
      stable: { description: 'Capture until two captures in a row are identical before comparing.', type: 'boolean' },
      width: ref('size'),
      height: ref('size'),
    },
    ['of', 'golden'],
  ),
  compile(raw, ctx) {
    type Raw = Partial<Tolerance> & { of: string; golden: string; masks?: Rect[]; regions?: (Rect & Partial<Tolerance>)[]; stable?: boolean; width?: number; height?: number };
    const r = raw as Raw;
    const d = ctx.defaults as Partial<Tolerance> & { stable?: boolean };
    const of = ctx.window(r.of, ['of'], ['app', 'editor', 'window']) ?? { target: 'app', address: 'app' };
    checkSize(r, ctx);
    const tolerance = pickTolerance(r, pickTolerance(d, { threshold: DEFAULT_THRESHOLD }));
    return {
      of,
      golden: ctx.resolvePath(r.golden),
      ...tolerance,
      masks: r.masks ?? [],
      regions: (r.regions ?? []).map((g) => ({ x: g.x, y: g.y, width: g.width, height: g.height, ...pickTolerance(g, tolerance) })),
      stable: r.stable ?? d.stable ?? false,
      ...(r.width !== undefined ? { width: r.width } : {}),
      ...(r.height !== undefined ? { height: r.height } : {}),
    };
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
function pickTolerance(given: Partial<Tolerance>, fallback: Tolerance): Tolerance {
  const t: Tolerance = { threshold: given.threshold ?? fallback.threshold };
  const pixels = given.max_diff_pixels ?? fallback.max_diff_pixels;
  const ratio = given.max_diff_ratio ?? fallback.max_diff_ratio;
  if (pixels !== undefined) t.max_diff_pixels = pixels;
  if (ratio !== undefined) t.max_diff_ratio = ratio;
  return t;
}
