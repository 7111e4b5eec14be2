import { CompareError } from '../image/image-error.js';
import { diffToRgba, drawDiff, padTo } from './diff-image.js';
import { checkRgbaImage, clipRect, formatSize, type Rect, type RgbaImage, type Size } from '../image/rgba.js';
import { markDifferences } from './pixel-diff.js';
import { listChunks } from '../image/png-chunks.js';
import { decodePng, readHeader } from '../image/png-decode.js';
import { encodeIndexedPng } from '../image/png-encode.js';
import {
  checkRect,
  describeMeasure,
  globalTolerance,
  regionTolerance,
  withinTolerance,
  type RegionOptions,
  type Tolerance,
} from './tolerance.js';

/** PNG bytes, or pixels already decoded. */
export type ImageInput = Uint8Array | RgbaImage;

export interface CompareOptions {
  /** pixelmatch's per-pixel colour threshold, 0..1; default 0.1. */
  threshold?: number;
  /** Count anti-aliased pixels too (pixelmatch `includeAA`); by default they are excused. */
  includeAA?: boolean;
  maxDiffPixels?: number;
  /** 0..1. */
  maxDiffRatio?: number;
  /** Rectangles whose pixels are not judged at all. */
  masks?: Rect[];
  /** Rectangles judged by their own tolerance; where regions overlap, the first one listed judges. */
  regions?: RegionOptions[];
  /** Form of the diff image on failure: PNG bytes (default), decoded pixels, or none. */
  diff?: 'png' | 'rgba' | 'none';
}

export type ComparisonKind = 'identical' | 'within-tolerance' | 'different' | 'size-mismatch';

/** Numbers measured over one judged area (the whole image, the rest outside regions, or a region). */
export interface AreaResult {
  pass: boolean;
  diffPixels: number;
  totalPixels: number;
  diffRatio: number;
  tolerance: Tolerance;
  message: string;
}

export interface RegionResult extends AreaResult {
  name: string;
  rect: Rect;
}

export interface Comparison {
  pass: boolean;
  kind: ComparisonKind;
  /** Differing pixels over every judged (unmasked) pixel, regions included. */
  diffPixels: number;
  diffRatio: number;
  totalPixels: number;
  /** The global tolerance, which judges every pixel outside the regions. */
  tolerance: Tolerance;
  /** The pixels outside every region, when there are regions. */
  outside?: AreaResult;
  regions: RegionResult[];
  /** Unknown only when byte-identical inputs carry no readable PNG header. */
  actualSize?: Size;
  expectedSize?: Size;
  /** Present on failure unless `diff: 'none'`. */
  diff?: Uint8Array | RgbaImage;
  message: string;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

function headerSize(bytes: Uint8Array): Size | undefined {
  try {
    const { width, height } = readHeader(bytes, listChunks(bytes), 'image');
    return { width, height };
  } catch {
    return undefined;
  }
}

async function toImage(input: ImageInput, label: string): Promise<RgbaImage> {
  if (input instanceof Uint8Array) return decodePng(input, `the ${label} image`);
  const image = checkRgbaImage(input, `the ${label}`);
  // 32-bit pixel access needs aligned data; a subarray at an odd offset is copied once.
  return image.data.byteOffset % 4 === 0 ? image : { ...image, data: image.data.slice() };
}

/**
 * Compares a capture with its expected image under a tolerance. Differences are a result, not
 * an error: only unreadable input or invalid options throw (CompareError).
 */
export async function compareImages(
  actual: ImageInput,
  expected: ImageInput,
  options: CompareOptions = {},
): Promise<Comparison> {
  const tolerance = globalTolerance(options);
  const regionSpecs = options.regions ?? [];
  const regionTolerances = regionSpecs.map((r, i) => regionTolerance(r, i, tolerance));
  (options.masks ?? []).forEach((m, i) => checkRect(`mask ${i + 1}`, m));
  const judge = { threshold: tolerance.threshold, includeAA: options.includeAA ?? false };

  if (actual instanceof Uint8Array && expected instanceof Uint8Array && bytesEqual(actual, expected)) {
    // Same bytes, same pixels: no need to decode. The size is read from the header when there is one.
    const size = headerSize(actual);
    const total = size ? size.width * size.height : 0;
    return {
      pass: true,
      kind: 'identical',
      diffPixels: 0,
      diffRatio: 0,
      totalPixels: total,
      tolerance,
      regions: [],
      ...(size ? { actualSize: size, expectedSize: size } : {}),
      message: 'images are byte-identical',
    };
  }

  const [a, e] = await Promise.all([toImage(actual, 'actual'), toImage(expected, 'expected')]);
  const actualSize = { width: a.width, height: a.height };
  const expectedSize = { width: e.width, height: e.height };

  if (a.width !== e.width || a.height !== e.height) {
    const width = Math.max(a.width, e.width);
    const height = Math.max(a.height, e.height);
    const marks = new Uint32Array(width * height);
    const pe = padTo(e, width, height);
    const diffPixels = markDifferences(pe, padTo(a, width, height), { x: 0, y: 0, width, height }, judge, marks);
    const result: Comparison = {
      pass: false,
      kind: 'size-mismatch',
      diffPixels,
      diffRatio: diffPixels / (width * height),
      totalPixels: width * height,
      tolerance,
      regions: [],
      actualSize,
      expectedSize,
      message: `image sizes differ: actual ${formatSize(actualSize)}, expected ${formatSize(expectedSize)}`,
    };
    return withDiff(result, pe, marks, undefined, options);
  }

  const { width, height } = e;
  const full = { x: 0, y: 0, width, height };
  const identical = bytesEqual(a.data, e.data);
  const marks = new Uint32Array(width * height);
  let diffPixels = identical ? 0 : markDifferences(e, a, full, judge, marks);

  // Regions with their own threshold are judged again, last first, so where regions overlap the first one listed has the final word.
  const regionRects = regionSpecs.map((r) => clipRect(r, width, height));
  for (let i = regionSpecs.length - 1; i >= 0 && !identical; i--) {
    const rect = regionRects[i];
    const own = regionTolerances[i]!;
    if (!rect || own.threshold === tolerance.threshold) continue;
    for (let y = rect.y; y < rect.y + rect.height; y++)
      marks.fill(0, y * width + rect.x, y * width + rect.x + rect.width);
    markDifferences(e, a, rect, { ...judge, threshold: own.threshold }, marks);
  }

  const masks = (options.masks ?? []).map((m) => clipRect(m, width, height)).filter((m): m is Rect => m !== undefined);
  let areas: Array<{ diff: number; total: number }> = [{ diff: diffPixels, total: width * height }];
  let ignored: Uint8Array | undefined;
  if (masks.length > 0 || regionSpecs.length > 0) {
    ({ areas, ignored } = tally(marks, width, height, regionRects, masks));
    diffPixels = areas.reduce((n, x) => n + x.diff, 0);
  }
  const totalPixels = areas.reduce((n, x) => n + x.total, 0);
  const outside = area(areas[0]!, tolerance);
  const regions = regionSpecs.map((spec, i): RegionResult => ({
    name: spec.name ?? `region ${i + 1}`,
    rect: { x: spec.x, y: spec.y, width: spec.width, height: spec.height },
    ...area(areas[i + 1]!, regionTolerances[i]!),
  }));
  const pass = outside.pass && regions.every((r) => r.pass);
  const kind: ComparisonKind = identical ? 'identical' : pass ? 'within-tolerance' : 'different';
  const parts =
    regionSpecs.length === 0
      ? [outside.message]
      : [
          `outside regions: ${outside.message}`,
          ...regions.map((r) => `${r.name} (${r.rect.x},${r.rect.y} ${formatSize(r.rect)}): ${r.message}`),
        ];
  const shown = pass ? parts : parts.filter((_, i) => !(i === 0 ? outside.pass : regions[i - 1]!.pass));
  const result: Comparison = {
    pass,
    kind,
    diffPixels,
    totalPixels,
    diffRatio: totalPixels === 0 ? 0 : diffPixels / totalPixels,
    tolerance,
    ...(regionSpecs.length > 0 ? { outside } : {}),
    regions,
    actualSize,
    expectedSize,
    message: identical ? 'images are pixel-identical' : shown.join('; '),
  };
  return pass ? result : withDiff(result, e, marks, ignored, options);
}

function area(counts: { diff: number; total: number }, tolerance: Tolerance): AreaResult {
  return {
    pass: withinTolerance(counts.diff, counts.total, tolerance),
    diffPixels: counts.diff,
    totalPixels: counts.total,
    diffRatio: counts.total === 0 ? 0 : counts.diff / counts.total,
    tolerance,
    message: describeMeasure(counts.diff, counts.total, tolerance),
  };
}

/**
 * Counts differing and judged pixels per area: index 0 is everything outside the regions, then
 * one entry per region (the first region listed owns overlapping pixels); masked pixels count
 * nowhere. Also returns the mask map for the diff picture.
 */
function tally(marks: Uint32Array, width: number, height: number, regions: Array<Rect | undefined>, masks: Rect[]) {
  const MASKED = 0xffff;
  if (regions.length >= MASKED)
    throw new CompareError(
      'BAD_OPTIONS',
      `image comparison: ${regions.length} regions are too many`,
      'use fewer regions',
    );
  const owner = new Uint16Array(width * height);
  const fill = (r: Rect, value: number) => {
    for (let y = r.y; y < r.y + r.height; y++) owner.fill(value, y * width + r.x, y * width + r.x + r.width);
  };
  for (let i = regions.length - 1; i >= 0; i--) if (regions[i]) fill(regions[i]!, i + 1);
  const ignored = masks.length > 0 ? new Uint8Array(width * height) : undefined;
  for (const m of masks) {
    fill(m, MASKED);
    for (let y = m.y; y < m.y + m.height; y++) ignored!.fill(1, y * width + m.x, y * width + m.x + m.width);
  }
  const areas = Array.from({ length: regions.length + 1 }, () => ({ diff: 0, total: 0 }));
  for (let i = 0; i < owner.length; i++) {
    const o = owner[i]!;
    if (o === MASKED) continue;
    const counts = areas[o]!;
    counts.total++;
    if (marks[i] !== 0) counts.diff++;
  }
  return { areas, ignored };
}

async function withDiff(
  result: Comparison,
  expected: RgbaImage,
  marks: Uint32Array,
  ignored: Uint8Array | undefined,
  options: CompareOptions,
): Promise<Comparison> {
  const form = options.diff ?? 'png';
  if (form === 'none') return result;
  const picture = drawDiff(expected, marks, ignored);
  // The diff is looked at, not archived: a low zlib level keeps failing runs fast.
  if (form === 'rgba') return { ...result, diff: diffToRgba(picture) };
  return {
    ...result,
    diff: await encodeIndexedPng(picture.width, picture.height, picture.indices, picture.palette, 1),
  };
}
