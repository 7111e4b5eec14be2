import type { DataSet } from 'dicom-parser';
import { EXPLICIT_BE } from './data-set.js';
import { fail } from './errors.js';
import type { SliceHeader } from './slice-header.js';
import type { RgbSamples } from '../volume.js';

/**
 * PALETTE COLOR expanded to RGB as GDCM does it for ITK, and so for MITK (`PixmapReader`
 * reading the tables, `LookupTable::SetLUT/Decode`, `SegmentedPaletteColorLookupTable`,
 * `ImageApplyLookupTable`). The table is sized by the image's BitsAllocated, not by the
 * entries' bits: an 8-bit image gives 8-bit RGB (the high byte of 16-bit entries), a 16-bit
 * image 16-bit RGB. Each stored value indexes the table directly; entries past the table's
 * length are black.
 */
export interface Palette {
  /** 8 or 16: the bits of each RGB sample. */
  bits: number;
  /** Interleaved R, G, B of every index the stored values can take. */
  table: Uint16Array;
}

const DESCRIPTOR = ['x00281101', 'x00281102', 'x00281103'];
const DATA = ['x00281201', 'x00281202', 'x00281203'];
const SEGMENTED = ['x00281221', 'x00281222', 'x00281223'];

export function isPalette(h: SliceHeader): boolean {
  return h.samples === 1 && h.photometric === 'PALETTE COLOR';
}

export function readPalette(h: SliceHeader): Palette {
  const bits = h.bitsAllocated;
  if (bits !== 8 && bits !== 16)
    fail('UNSUPPORTED_PIXEL_DATA', h.file, `is PALETTE COLOR with ${bits} bits allocated; GDCM reads 8 or 16`);
  const size = bits === 8 ? 256 : 65536;
  const table = new Uint16Array(size * 3);
  // GDCM decides once for all three channels: segmented if the red segmented data is present.
  const segmented = h.ds.elements[SEGMENTED[0]!] !== undefined;
  for (let c = 0; c < 3; c++) {
    const descriptor = h.ds.elements[DESCRIPTOR[c]!];
    if (descriptor === undefined || descriptor.length < 6)
      fail(
        'CORRUPT',
        h.file,
        `is PALETTE COLOR without a complete ${channel(c)} Palette Color Lookup Table Descriptor`,
      );
    const given = h.ds.uint16(DESCRIPTOR[c]!, 0)!;
    const length = given || 65536;
    const entryBits = h.ds.uint16(DESCRIPTOR[c]!, 2)!;
    if (entryBits !== 8 && entryBits !== 16)
      fail('UNSUPPORTED_PIXEL_DATA', h.file, `has ${entryBits}-bit ${channel(c)} palette entries; GDCM reads 8 or 16`);
    const data = bytesOf(h.ds, h.ds.elements[DATA[c]!] !== undefined ? DATA[c]! : SEGMENTED[c]!, h);
    if (data === undefined) fail('CORRUPT', h.file, `is PALETTE COLOR without ${channel(c)} palette data`);
    // A table of 256 entries (or 65536, given as 0) must fill GDCM's table exactly, else GDCM
    // drops it with an error and the channel stays black; other lengths are taken as they are.
    const complete = given === 0 || given === 256;
    if (complete && length !== size) continue;
    // Once the red data is segmented, GDCM reads every channel's data as segmented.
    const entries = segmented ? expandSegmented(h, data, bits) : data;
    fillChannel(h, table, c, entries, Math.min(length, size), entryBits, bits, !segmented);
  }
  return { bits, table };
}

function channel(c: number): string {
  return ['red', 'green', 'blue'][c]!;
}

/** The element's bytes, words in little-endian order (big-endian data swapped). */
function bytesOf(ds: DataSet, tag: string, h: SliceHeader): Uint8Array | undefined {
  const el = ds.elements[tag];
  if (el === undefined) return undefined;
  const bytes = (ds.byteArray as Uint8Array).subarray(el.dataOffset, el.dataOffset + el.length);
  if (h.transferSyntax !== EXPLICIT_BE) return bytes;
  const copy = new Uint8Array(bytes);
  for (let i = 0; i + 1 < copy.length; i += 2) [copy[i], copy[i + 1]] = [copy[i + 1]!, copy[i]!];
  return copy;
}

/**
 * `LookupTable::SetLUT`. For an 8-bit image: when the data holds the entries as their bits say,
 * 16-bit entries give their high byte and 8-bit entries their byte; otherwise entries are taken
 * every data length / table length bytes (8-bit entries stored one a 16-bit word give their low
 * byte). For a 16-bit image the data must hold 16-bit entries.
 */
function fillChannel(
  h: SliceHeader,
  table: Uint16Array,
  c: number,
  data: Uint8Array,
  length: number,
  entryBits: number,
  bits: number,
  plain: boolean,
): void {
  if (bits === 8) {
    const perEntry = entryBits / 8;
    const packed = length * perEntry === data.length || length * perEntry + 1 === data.length;
    const step = packed ? perEntry : Math.max(1, Math.floor(data.length / length));
    const offset = packed && perEntry === 2 ? 1 : 0;
    for (let i = 0; i < length && i * step + offset < data.length; i++) table[i * 3 + c] = data[i * step + offset]!;
    return;
  }
  // GDCM stops with an assertion on a 16-bit image whose plain table is not 16 bits an entry.
  if (plain && data.length !== length * 2)
    fail(
      'UNSUPPORTED_PIXEL_DATA',
      h.file,
      `has a 16-bit palette index with ${entryBits}-bit ${channel(c)} entries (${data.length} bytes for ${length}), which GDCM does not read`,
    );
  const words = new Uint16Array(data.buffer.slice(data.byteOffset, data.byteOffset + (data.length & ~1)));
  for (let i = 0; i < length && i < words.length; i++) table[i * 3 + c] = words[i]!;
}

/**
 * Segmented palette data expanded (`SegmentedPaletteColorLookupTable`): discrete segments
 * (opcode 0) copy their values; linear ones (1) run from the last value towards their end value
 * without reaching it, rounded; indirect ones (2) replay earlier segments found by byte offset.
 * GDCM expands 16-bit images' tables only; for 8-bit images it leaves the table black.
 */
function expandSegmented(h: SliceHeader, data: Uint8Array, bits: number): Uint8Array {
  if (bits === 8) return new Uint8Array(0);
  const words = new Uint16Array(data.buffer.slice(data.byteOffset, data.byteOffset + (data.length & ~1)));
  interface Segment {
    start: number;
    end: number;
  }
  const segments: Segment[] = [];
  let at = 0;
  while (at < words.length) {
    const op = words[at]!;
    const end = op === 0 ? at + 2 + (words[at + 1] ?? 0) : op === 1 ? at + 3 : op === 2 ? at + 4 : -1;
    if (end < 0) break;
    segments.push({ start: at, end });
    at = end;
  }
  const out: number[] = [];
  const byStart = new Map(segments.map((s, i) => [s.start, i]));
  // Indirect segments may point at each other; a hostile table must not expand for ever.
  let work = 0;
  const expand = (s: Segment, depth: number): void => {
    if (++work > 1_000_000 || out.length > 65536 * 4 || depth > 64)
      fail('CORRUPT', h.file, 'has segmented palette data whose indirect segments expand beyond any table');
    const op = words[s.start]!;
    if (op === 0) for (let i = s.start + 2; i < s.end && i < words.length; i++) out.push(words[i]!);
    else if (op === 1) {
      if (out.length === 0) return;
      const length = words[s.start + 1] ?? 0;
      const y0 = out.at(-1)!;
      const y1 = words[s.start + 2] ?? 0;
      for (let i = 0; i < length; i++) out.push(roundHalfAway(y0 + (i / length) * (y1 - y0)));
    } else if (op === 2) {
      const count = words[s.start + 1] ?? 0;
      const offsetBytes = (words[s.start + 2] ?? 0) | ((words[s.start + 3] ?? 0) << 16);
      const first = byStart.get(offsetBytes / 2);
      if (first === undefined) return;
      for (let k = 0; k < count && first + k < segments.length; k++) expand(segments[first + k]!, depth + 1);
    }
  };
  for (const s of segments) expand(s, 0);
  return new Uint8Array(Uint16Array.from(out).buffer);
}

/** `std::llround`: halves away from zero. */
const roundHalfAway = (v: number): number => Math.sign(v) * Math.round(Math.abs(v));

/**
 * Stored values to RGB through the palette. `rgb` receives the table's samples as they are
 * (unsigned shorts for a 16-bit image, as GDCM gives them); `out` their luminance.
 */
export function applyPalette(
  palette: Palette,
  samples: ArrayLike<number>,
  n: number,
  out: Float32Array,
  at: number,
  rgb: RgbSamples | undefined,
  rgbAt: number,
): void {
  const { table, bits } = palette;
  const mask = bits === 8 ? 0xff : 0xffff;
  for (let i = 0; i < n; i++) {
    const index = (samples[i]! & mask) * 3;
    const r = table[index]!;
    const g = table[index + 1]!;
    const b = table[index + 2]!;
    out[at + i] = 0.299 * r + 0.587 * g + 0.114 * b;
    if (rgb !== undefined) {
      rgb[rgbAt + i * 3] = r;
      rgb[rgbAt + i * 3 + 1] = g;
      rgb[rgbAt + i * 3 + 2] = b;
    }
  }
}
