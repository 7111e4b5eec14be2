import { deflateSync } from 'node:zlib';
import type * as Utif from 'utif2';
import { loadOnFirstUse } from '../image/codec-loader.js';

/*
 * TIFF for journals that ask for it: the PNG's pixels as 8-bit RGB, Deflate-compressed (TIFF
 * compression 8, which libtiff, ImageMagick and every journal's checker read), with the figure's
 * resolution in dots per inch. UTIF (`utif2`, Photopea's codec) writes the directory of tags; it
 * writes only uncompressed strips itself, so the one strip is deflated by Node's zlib and put
 * after the directory, where UTIF's own encoder puts its pixels. A native image library (sharp,
 * libvips) writes the same file but brings a native build of libvips for this one format.
 */

const loadUtif = loadOnFirstUse<typeof Utif>('utif2');

/** Where the pixels start: room for the directory UTIF writes, as its own encoder leaves. */
const DATA_OFFSET = 1000;

/** A TIFF of RGBA pixels (alpha dropped: a figure is opaque) at `dpi`. */
export function encodeTiff(image: { width: number; height: number; data: Uint8Array }, dpi: number): Uint8Array {
  const { width, height, data } = image;
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0, o = 0; i < width * height * 4; i += 4, o += 3) {
    rgb[o] = data[i]!;
    rgb[o + 1] = data[i + 1]!;
    rgb[o + 2] = data[i + 2]!;
  }
  const strip = deflateSync(rgb);
  // Resolution as a rational of whole numbers; 1/100 dpi is finer than any journal asks.
  const resolution = [[Math.round(dpi * 100), 100]];
  const ifd = {
    t256: [width],
    t257: [height],
    t258: [8, 8, 8],
    t259: [8],
    t262: [2],
    t273: [DATA_OFFSET],
    t277: [3],
    t278: [height],
    t279: [strip.length],
    t282: resolution,
    t283: resolution,
    t284: [1],
    t296: [2],
    t305: ['wbplay'],
  };
  const directory = new Uint8Array(loadUtif().encode([ifd as unknown as Utif.IFD]));
  if (directory.length > DATA_OFFSET) throw new Error(`the TIFF directory takes ${directory.length} bytes`);
  const out = new Uint8Array(DATA_OFFSET + strip.length);
  out.set(directory);
  out.set(strip, DATA_OFFSET);
  return out;
}
