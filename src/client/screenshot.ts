import { WorkbenchUsageError } from './errors.js';
import { MAX_IMAGE_BYTES } from './limits.js';
import type { CallOptions, Transport } from './transport.js';
import type { Screenshot, ScreenshotOptions } from './types.js';

/** The server's limit for either side of a scaled screenshot. */
export const MAX_SCREENSHOT_SIDE = 8192;

/**
 * Captures a screenshot from one of the screenshot routes. The parameters are checked here
 * with the server's rules (format png or jpeg, width and height together, 1..8192) so a bad
 * call fails before it costs a capture; `format` is always sent.
 */
export async function captureScreenshot(t: Transport, path: string, opts: ScreenshotOptions & CallOptions = {}): Promise<Screenshot> {
  const format = opts.format ?? 'png';
  if (format !== 'png' && format !== 'jpeg') {
    throw new WorkbenchUsageError('INVALID_ARGUMENT', `screenshot format must be 'png' or 'jpeg', got '${String(format)}'`);
  }
  if ((opts.width === undefined) !== (opts.height === undefined)) {
    throw new WorkbenchUsageError('INVALID_ARGUMENT', 'screenshot width and height must be given together (or neither, for the native size)');
  }
  for (const [name, v] of [['width', opts.width], ['height', opts.height]] as const) {
    if (v !== undefined && !(Number.isInteger(v) && v >= 1 && v <= MAX_SCREENSHOT_SIDE)) {
      throw new WorkbenchUsageError('INVALID_ARGUMENT', `screenshot ${name} must be an integer from 1 to ${MAX_SCREENSHOT_SIDE}, got ${v}`);
    }
  }
  const reply = await t.send({
    method: 'GET',
    path,
    query: [['format', format], ['width', opts.width], ['height', opts.height]],
    headers: { accept: format === 'png' ? 'image/png' : 'image/jpeg' },
    call: opts,
    answer: { maxBytes: MAX_IMAGE_BYTES, what: 'a screenshot' },
  });
  const type = reply.headers['content-type'];
  const contentType = (Array.isArray(type) ? type[0] : type) ?? (format === 'png' ? 'image/png' : 'image/jpeg');
  return { bytes: new Uint8Array(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength), contentType };
}
