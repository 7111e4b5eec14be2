import { CompareError } from './image-error.js';

/** A decoded image: 8-bit RGBA, rows top to bottom, no padding. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** A colour, 0..1 per channel. */
export type Rgb = [number, number, number];

export interface Size {
  width: number;
  height: number;
}

/** A pixel rectangle; `x`, `y` is its top-left corner. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Checks that a caller's decoded image is what it claims to be, so a bad buffer fails here and not deep inside a pixel loop. */
export function checkRgbaImage(image: RgbaImage, label: string): RgbaImage {
  const { width, height, data } = image;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new CompareError(
      'BAD_IMAGE',
      `${label} image has an invalid size ${String(width)}x${String(height)}`,
      'width and height must be positive integers',
    );
  }
  if (!(data instanceof Uint8Array) || data.length !== width * height * 4) {
    throw new CompareError(
      'BAD_IMAGE',
      `${label} image is ${width}x${height} but its pixel buffer holds ${data instanceof Uint8Array ? data.length : 'no'} bytes instead of ${width * height * 4}`,
      'pass RGBA data, 4 bytes per pixel, rows without padding',
    );
  }
  return image;
}

/** The part of `rect` inside a `width` x `height` image, or undefined when nothing is left. */
export function clipRect(rect: Rect, width: number, height: number): Rect | undefined {
  const x0 = Math.max(0, rect.x);
  const y0 = Math.max(0, rect.y);
  const x1 = Math.min(width, rect.x + rect.width);
  const y1 = Math.min(height, rect.y + rect.height);
  if (x1 <= x0 || y1 <= y0) return undefined;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

export function formatSize(size: Size): string {
  return `${size.width}x${size.height}`;
}
