import { chunkCrcMatches, concatBytes, listChunks, makeChunk } from './png-chunks.js';

/** PNG records resolution in pixels per metre; print sizes speak dots per inch. */
const METRES_PER_INCH = 0.0254;

/**
 * The PNG with its print resolution in a pHYs chunk (right after IHDR, where the format wants
 * it: before any IDAT), replacing one it had. A reader then shows the image at its size in
 * millimetres; the pixels are copied, never re-encoded.
 */
export function withResolution(png: Uint8Array, dpi: number, label = 'image'): Uint8Array {
  const perMetre = Math.round(dpi / METRES_PER_INCH);
  const data = new Uint8Array(9);
  const view = new DataView(data.buffer);
  view.setUint32(0, perMetre);
  view.setUint32(4, perMetre);
  data[8] = 1; // unit: the metre
  const chunks = listChunks(png, label);
  const parts: Uint8Array[] = [png.subarray(0, chunks[0]!.offset)];
  for (const chunk of chunks) {
    if (chunk.type === 'pHYs') continue;
    parts.push(png.subarray(chunk.offset, chunk.dataOffset + chunk.length + 4));
    if (chunk.type === 'IHDR') parts.push(makeChunk('pHYs', data));
  }
  return concatBytes(parts);
}

/** The resolution a PNG records, in dots per inch per axis; undefined when it records none in metres. */
export function readResolution(png: Uint8Array, label = 'image'): { x: number; y: number } | undefined {
  const chunk = listChunks(png, label).find((c) => c.type === 'pHYs' && c.length === 9);
  if (!chunk || !chunkCrcMatches(png, chunk)) return undefined;
  const view = new DataView(png.buffer, png.byteOffset + chunk.dataOffset, 9);
  if (view.getUint8(8) !== 1) return undefined;
  return { x: view.getUint32(0) * METRES_PER_INCH, y: view.getUint32(4) * METRES_PER_INCH };
}
