/**
 * Input the renderer cannot draw: an image size that is not a whole number of pixels in
 * 1..MAX_DIMENSION, or pixel data that does not match its size. The message says which argument
 * and what it must be; the server answers it as an internal error, since its own routes check
 * sizes before they call the renderer.
 */
export class RenderInputError extends Error {
  readonly code = 'RENDER_INPUT' as const;

  constructor(message: string) {
    super(message);
    this.name = 'RenderInputError';
  }
}

/** Largest width or height the renderer draws (the API accepts screenshots up to 8192). */
export const MAX_DIMENSION = 16384;

/** Throws unless `value` is a whole number of pixels in 1..MAX_DIMENSION. */
export function checkDimension(what: string, value: number): void {
  if (!Number.isInteger(value) || value < 1 || value > MAX_DIMENSION) {
    throw new RenderInputError(
      `${what} must be a whole number of pixels from 1 to ${MAX_DIMENSION}, got ${String(value)}`,
    );
  }
}

/** Throws unless `image.data` holds exactly width x height RGBA pixels. */
export function checkImage(what: string, image: { width: number; height: number; data: Uint8Array }): void {
  checkDimension(`${what} width`, image.width);
  checkDimension(`${what} height`, image.height);
  if (image.data.length !== image.width * image.height * 4) {
    throw new RenderInputError(
      `${what} has ${image.data.length} bytes of pixels, but ${image.width}x${image.height} RGBA needs ${image.width * image.height * 4}`,
    );
  }
}
