import { Problem } from '../problem.js';
import type { ScreenshotParams } from '../viewer/screenshots.js';

const MAX_SIDE = 8192;

const invalid = (message: string): never => {
  throw new Problem('INVALID_REQUEST', message);
};

/**
 * The integer parse of the real server (C++ `std::stoi`): leading blanks, an optional sign and
 * digits, anything after the digits ignored (`12abc` is 12); no digits, or a value beyond
 * 32 bits, is not an integer.
 */
function stoi(text: string): number | undefined {
  const m = /^[ \t\n\r\f\v]*([+-]?\d+)/.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return n > 2147483647 || n < -2147483648 ? undefined : n;
}

/** The one parser of `format`, `width` and `height` that every screenshot route shares. */
export function parseScreenshotParams(query: URLSearchParams): ScreenshotParams {
  const format = query.get('format') ?? 'png';
  if (format !== 'png' && format !== 'jpeg') invalid(`Invalid format '${format}'. Must be 'png' or 'jpeg'.`);
  const params: ScreenshotParams = { format: format as 'png' | 'jpeg' };
  const w = query.get('width');
  const h = query.get('height');
  if (w === null && h === null) return params;
  if (w === null || h === null) return invalid("Both 'width' and 'height' must be provided together.");
  const width = stoi(w);
  const height = stoi(h);
  if (width === undefined || height === undefined) return invalid("'width' and 'height' must be integers.");
  if (width <= 0 || height <= 0) invalid("'width' and 'height' must be positive integers.");
  if (width > MAX_SIDE || height > MAX_SIDE) invalid(`'width' and 'height' must not exceed ${MAX_SIDE}.`);
  return { ...params, width, height };
}
