import { CompareError } from '../image/image-error.js';
import type { Rect } from '../image/rgba.js';
import type { Tolerance } from '../result/result.js';

export type { Tolerance };

/** A rectangle judged by its own tolerance instead of the global one. */
export interface RegionOptions extends Rect {
  threshold?: number;
  maxDiffPixels?: number;
  maxDiffRatio?: number;
  /** Shown in messages; defaults to `region <n>`. */
  name?: string;
}

/** pixelmatch's own default: small anti-aliasing and encoder differences pass. */
export const DEFAULT_THRESHOLD = 0.1;

function bad(where: string, what: string): CompareError {
  return new CompareError('BAD_OPTIONS', `${where}: ${what}`, 'fix the image assertion options');
}

function checkUnit(where: string, name: string, value: number | undefined): void {
  if (value !== undefined && !(typeof value === 'number' && value >= 0 && value <= 1)) {
    throw bad(where, `${name} must be a number from 0 to 1, got ${String(value)}`);
  }
}

function checkCount(where: string, name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
    throw bad(where, `${name} must be a whole number of pixels (0 or more), got ${String(value)}`);
  }
}

export function checkRect(where: string, rect: Rect): void {
  for (const key of ['x', 'y'] as const) {
    if (!Number.isInteger(rect[key]) || rect[key] < 0)
      throw bad(where, `${key} must be a whole number of 0 or more, got ${String(rect[key])}`);
  }
  for (const key of ['width', 'height'] as const) {
    if (!Number.isInteger(rect[key]) || rect[key] <= 0)
      throw bad(where, `${key} must be a whole number above 0, got ${String(rect[key])}`);
  }
}

/** The global tolerance from the options: the threshold defaults to 0.1, no limit means no differing pixel is allowed. */
export function globalTolerance(options: {
  threshold?: number;
  maxDiffPixels?: number;
  maxDiffRatio?: number;
}): Tolerance {
  checkUnit('image comparison', 'threshold', options.threshold);
  checkCount('image comparison', 'max_diff_pixels', options.maxDiffPixels);
  checkUnit('image comparison', 'max_diff_ratio', options.maxDiffRatio);
  return limits(options.threshold ?? DEFAULT_THRESHOLD, options);
}

/**
 * A region's tolerance. Its threshold falls back to the global one; its limits are its own when
 * it sets any, so a region that allows 50% is not held back by a global pixel count, and it
 * takes the global limits when it sets none.
 */
export function regionTolerance(region: RegionOptions, index: number, global: Tolerance): Tolerance {
  const where = `region ${index + 1}`;
  checkRect(where, region);
  checkUnit(where, 'threshold', region.threshold);
  checkCount(where, 'max_diff_pixels', region.maxDiffPixels);
  checkUnit(where, 'max_diff_ratio', region.maxDiffRatio);
  const own = region.maxDiffPixels !== undefined || region.maxDiffRatio !== undefined;
  return limits(region.threshold ?? global.threshold, own ? region : global);
}

function limits(threshold: number, from: { maxDiffPixels?: number; maxDiffRatio?: number }): Tolerance {
  const tolerance: Tolerance = { threshold };
  if (from.maxDiffPixels !== undefined) tolerance.maxDiffPixels = from.maxDiffPixels;
  if (from.maxDiffRatio !== undefined) tolerance.maxDiffRatio = from.maxDiffRatio;
  return tolerance;
}

export function withinTolerance(diffPixels: number, totalPixels: number, tolerance: Tolerance): boolean {
  const { maxDiffPixels, maxDiffRatio } = tolerance;
  if (maxDiffPixels === undefined && maxDiffRatio === undefined) return diffPixels === 0;
  if (maxDiffPixels !== undefined && diffPixels > maxDiffPixels) return false;
  // Compared as counts so that a ratio written as 0.001 and a count of exactly 0.1% agree.
  if (maxDiffRatio !== undefined && diffPixels > maxDiffRatio * totalPixels + 1e-9) return false;
  return true;
}

export function formatPercent(ratio: number): string {
  const pct = ratio * 100;
  if (pct > 0 && pct < 0.001) return '<0.001%';
  return `${pct.toFixed(3)}%`;
}

function pixels(n: number): string {
  return `${n} pixel${n === 1 ? '' : 's'}`;
}

/** "412 pixels differ (0.157%), allowed 0.100% (max_diff_ratio)": measured numbers against the tolerance applied. */
export function describeMeasure(diffPixels: number, totalPixels: number, tolerance: Tolerance): string {
  const ratio = totalPixels === 0 ? 0 : diffPixels / totalPixels;
  const measured = `${pixels(diffPixels)} ${diffPixels === 1 ? 'differs' : 'differ'} (${formatPercent(ratio)})`;
  const allowed: string[] = [];
  if (tolerance.maxDiffPixels !== undefined) allowed.push(`${pixels(tolerance.maxDiffPixels)} (max_diff_pixels)`);
  if (tolerance.maxDiffRatio !== undefined) allowed.push(`${formatPercent(tolerance.maxDiffRatio)} (max_diff_ratio)`);
  const limit = allowed.length > 0 ? allowed.join(' and ') : '0 pixels (no max_diff_pixels or max_diff_ratio set)';
  return `${measured}, allowed ${limit}, threshold ${tolerance.threshold}`;
}
