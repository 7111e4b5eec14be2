import { WorkbenchUsageError } from './errors.js';
import { jpegProblem, pngProblem } from './image-check.js';
import { MAX_IMAGE_BYTES } from './limits.js';
import { bad, header } from './parse.js';
import type { CallOptions, Transport } from './transport.js';
import type { Screenshot, ScreenshotOptions } from '../api/wire.js';

/** The server's limit for either side of a scaled screenshot. */
export const MAX_SCREENSHOT_SIDE = 8192;

/**
 * Captures a screenshot from one of the screenshot routes. The parameters are checked here
 * with the server's rules (format png or jpeg, width and height together, 1..8192) so a bad
 * call fails before it costs a capture; `format` is always sent.
 */
export async function captureScreenshot(
  t: Transport,
  path: string,
  opts: ScreenshotOptions & CallOptions = {},
): Promise<Screenshot> {
  const format = opts.format ?? 'png';
  if (format !== 'png' && format !== 'jpeg') {
    throw new WorkbenchUsageError(
      'INVALID_ARGUMENT',
      `screenshot format must be 'png' or 'jpeg', got '${String(format)}'`,
    );
  }
  if ((opts.width === undefined) !== (opts.height === undefined)) {
    throw new WorkbenchUsageError(
      'INVALID_ARGUMENT',
      'screenshot width and height must be given together (or neither, for the native size)',
    );
  }
  for (const [name, v] of [
    ['width', opts.width],
    ['height', opts.height],
  ] as const) {
    if (v !== undefined && !(Number.isInteger(v) && v >= 1 && v <= MAX_SCREENSHOT_SIDE)) {
      throw new WorkbenchUsageError(
        'INVALID_ARGUMENT',
        `screenshot ${name} must be an integer from 1 to ${MAX_SCREENSHOT_SIDE}, got ${v}`,
      );
    }
  }
  const expected = format === 'png' ? 'image/png' : 'image/jpeg';
  const reply = await t.send({
    method: 'GET',
    path,
    query: [
      ['format', format],
      ['width', opts.width],
      ['height', opts.height],
    ],
    headers: { accept: expected },
    call: opts,
    answer: { maxBytes: MAX_IMAGE_BYTES, what: 'a screenshot' },
  });
  // A capture is checked here, where the call is known, rather than failing later in whoever reads the file.
  const type = header(reply, 'content-type');
  if (type !== '' && !type.toLowerCase().startsWith(expected))
    throw bad(
      reply,
      `the answer has content-type ${type.slice(0, 80)} where a ${format} image (${expected}) was expected`,
    );
  const bytes = new Uint8Array(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength);
  const problem = format === 'png' ? await pngProblem(bytes) : jpegProblem(bytes);
  if (problem !== null) throw bad(reply, `${problem} (${bytes.length} bytes)`);
  return { bytes, contentType: type || expected };
}
