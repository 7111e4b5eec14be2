import { encodeImage } from '../../src/sim/render/encode.js';

/**
 * A small capture as the reference workbench encodes one (RGB PNG or JPEG), for scripted
 * screenshot answers that must pass the client's image check.
 */
export function captureBytes(format: 'png' | 'jpeg', width = 4, height = 3): Buffer {
  const data = new Uint8Array(width * height * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 37) % 256));
  return encodeImage({ width, height, data }, format);
}
