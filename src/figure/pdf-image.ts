import type { PDFDocument, PDFName, PDFPage } from 'pdf-lib';
import { concatBytes, listChunks } from '../image/png-chunks.js';

/*
 * A panel into a PDF. PDF's Flate filter reads PNG's row filters itself (the PNG predictors of
 * DecodeParms), so the compressed data of an opaque, 8-bit RGB PNG, which every window grab
 * is, goes into the PDF as it is: pdf-lib's own path decodes each PNG in JavaScript and deflates
 * it again, which took seconds for a 2x3 figure at 300 dpi. Other PNGs (alpha, palette,
 * interlaced) and JPEGs go through pdf-lib.
 */

export interface PlacedImage {
  name: PDFName;
  width: number;
  height: number;
}

/** The image as an XObject of the page; the same bytes give the same XObject. */
export async function pdfImage(
  doc: PDFDocument,
  page: PDFPage,
  bytes: Uint8Array,
  mime: 'image/png' | 'image/jpeg',
): Promise<PlacedImage> {
  const direct = mime === 'image/png' ? rgbPng(bytes) : undefined;
  if (direct) {
    const stream = doc.context.stream(direct.data, {
      Type: 'XObject',
      Subtype: 'Image',
      Width: direct.width,
      Height: direct.height,
      ColorSpace: 'DeviceRGB',
      BitsPerComponent: 8,
      Filter: 'FlateDecode',
      DecodeParms: { Predictor: 15, Colors: 3, BitsPerComponent: 8, Columns: direct.width },
    });
    const ref = doc.context.register(stream);
    return { name: page.node.newXObject('Image', ref), width: direct.width, height: direct.height };
  }
  const image = mime === 'image/png' ? await doc.embedPng(bytes) : await doc.embedJpg(bytes);
  // drawImage is what embeds the image: an image drawn through a name has to be embedded first.
  await image.embed();
  return { name: page.node.newXObject('Image', image.ref), width: image.width, height: image.height };
}

/** The zlib stream of an 8-bit, non-interlaced RGB PNG; undefined for any other PNG. */
function rgbPng(bytes: Uint8Array): { width: number; height: number; data: Uint8Array } | undefined {
  let chunks;
  try {
    chunks = listChunks(bytes);
  } catch {
    return undefined;
  }
  const header = chunks[0]!;
  const view = new DataView(bytes.buffer, bytes.byteOffset + header.dataOffset, header.length);
  const [depth, colour, , , interlace] = [8, 9, 10, 11, 12].map((i) => view.getUint8(i));
  if (depth !== 8 || colour !== 2 || interlace !== 0) return undefined;
  const data = concatBytes(
    chunks.filter((c) => c.type === 'IDAT').map((c) => bytes.subarray(c.dataOffset, c.dataOffset + c.length)),
  );
  return { width: view.getUint32(0), height: view.getUint32(4), data };
}
