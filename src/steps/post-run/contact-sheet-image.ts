import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../files/atomic-write.js';
import type { Rgb, RgbaImage } from '../../image/rgba.js';
import { listChunks } from '../../image/png-chunks.js';
import { decodePng, decodePngInto, readHeader } from '../../image/png-decode.js';
import { RgbPngWriter } from '../../image/png-encode.js';
import { stampProvenance, type FigureProvenance } from '../../files/provenance.js';
import type { CaseSummary } from '../../result/result.js';
import { drawTextStrip, fitText, lineHeight, type StripStyle } from '../../figure/text-lines.js';
import { blit as copyPixels, fillRect } from '../../image/pixels.js';
import { resizeImage } from '../../image/resize.js';

/** One tile of a sheet: the PNG bytes of a study's image, or a note on why there are none. */
export interface SheetTile {
  label: string;
  png?: Uint8Array;
  /** Shown in place of the image when there is none, e.g. `failed` or `missing`. */
  note?: string;
}

/** What a sheet shows: one tile per case, in order, read from its file. */
export interface SheetLayout {
  columns?: number;
  /** Tiles are scaled to this width, keeping their aspect; default: the first tile's width. */
  tile_width?: number;
  tiles: ReadonlyArray<{ case: string; file: string; label: string }>;
}

export interface SheetOptions {
  /** Tiles per row; default: the square root of the number of tiles, rounded up. */
  columns?: number;
  /** Width every tile is scaled to, keeping its aspect; default: the first image's width. */
  tileWidth?: number;
}

/** Space around the sheet and between tiles. */
export const SHEET_MARGIN = 8;
/** Space above and below a caption. */
export const CAPTION_PADDING = 4;
export const SHEET_BACKGROUND: Rgb = [0.1, 0.1, 0.1];
export const CAPTION_COLOR: Rgb = [0.9, 0.9, 0.9];
export const MISSING_COLOR: Rgb = [0.4, 0.4, 0.4];
/** Width of a tile when no tile has an image to take it from. */
const FALLBACK_WIDTH = 256;
/** Captions are set at 10 px under small tiles and at 16 px from this tile width on, as wide as a usual screenshot. */
const LARGE_TEXT_FROM = 192;
const SMALL_TEXT_PX = 10;
const LARGE_TEXT_PX = 16;
/**
 * At most this many bytes of caption pixels are drawn at once (rows of captions per resvg call):
 * bench/contact-sheet measured 51 MB added with 8 MB strips, 47 MB with 1 MB, 46 MB with this.
 */
const CAPTION_STRIP_BYTES = 256 << 10;

/** A tile's picture once its header is read: its size and whether it can be translucent, or why it has none. */
type Placed = { png: Uint8Array; width: number; height: number; opaque: boolean } | string;

/**
 * One picture of a whole cohort: every tile scaled to one width, in rows on a dark background,
 * each with its caption below; a tile without an image is a grey box saying why. Tiles of
 * different heights share one cell height, centred in it, so rows and columns line up. Pure
 * and deterministic: the same tiles give the same bytes.
 *
 * The layout comes from the tiles' headers. The sheet is then drawn and encoded a row of cells
 * at a time: each tile is decoded once, straight into its place in the band, and the band is
 * filtered and handed to zlib while the next row's tiles are decoded. What is held at once is
 * one band and the compressed sheet, never the whole picture. The sheet is opaque, so it is RGB.
 */
export async function renderContactSheet(tiles: readonly SheetTile[], options: SheetOptions = {}): Promise<Uint8Array> {
  const list = tiles.length > 0 ? tiles : [{ label: '', note: 'no studies' }];
  const placed = list.map(place);
  const first = placed.find((p) => typeof p !== 'string');
  const tileWidth = options.tileWidth ?? (typeof first === 'object' ? first.width : FALLBACK_WIDTH);
  const heights = placed.flatMap((p) => (typeof p === 'string' ? [] : [scaledHeight(p, tileWidth)]));
  const tileHeight = heights.length > 0 ? Math.max(...heights) : tileWidth;

  const columns = Math.min(list.length, Math.max(1, Math.floor(options.columns ?? Math.ceil(Math.sqrt(list.length)))));
  const rows = Math.ceil(list.length / columns);
  const fontPx = tileWidth >= LARGE_TEXT_FROM ? LARGE_TEXT_PX : SMALL_TEXT_PX;
  const line = lineHeight(fontPx);
  const cell = { width: tileWidth, height: tileHeight, fontPx };
  const cellHeight = tileHeight + 2 * CAPTION_PADDING + line;
  const width = columns * tileWidth + (columns + 1) * SHEET_MARGIN;
  const height = rows * cellHeight + (rows + 1) * SHEET_MARGIN;
  const captions = new CaptionRows(list, { columns, tileWidth, width, line, fontPx });

  const writer = new RgbPngWriter(width, height);
  // A band is one row of cells and the margin under it (the first also the margin above), after
  // one row that repeats the last row of the band before: the row the filter looks up to.
  const tallest = cellHeight + 2 * SHEET_MARGIN;
  const band: RgbaImage = { width, height: tallest + 1, data: new Uint8Array(width * (tallest + 1) * 4) };
  let written: Promise<void> = Promise.resolve();
  try {
    let last = 0;
    for (let r = 0; r < rows; r++) {
      const top = r === 0 ? 0 : SHEET_MARGIN + r * (cellHeight + SHEET_MARGIN);
      const bottom = SHEET_MARGIN + (r + 1) * (cellHeight + SHEET_MARGIN);
      band.data.copyWithin(0, last * width * 4, (last + 1) * width * 4);
      fillRect(band, 0, 1, width, bottom - top, SHEET_BACKGROUND);
      const cellTop = SHEET_MARGIN + r * (cellHeight + SHEET_MARGIN) - top + 1;
      // While these decode, zlib compresses the band before on the thread pool.
      await Promise.all(
        placed
          .slice(r * columns, (r + 1) * columns)
          .map((tile, c) => drawTile(band, SHEET_MARGIN + c * (tileWidth + SHEET_MARGIN), cellTop, cell, tile)),
      );
      copyPixels(band, captions.row(r), 0, cellTop + tileHeight + CAPTION_PADDING);
      await written;
      last = bottom - top;
      // Filters the band before returning, so it can be drawn on again at once.
      written = writer.write(band, 1, last + 1);
      // A failure is taken by the next await of it; this keeps it from counting as unhandled meanwhile.
      written.catch(() => undefined);
    }
    await written;
    return await writer.finish();
  } catch (error) {
    writer.abort();
    throw error;
  }
}

/**
 * A tile in its cell, centred in the cell's height: decoded into the band where it keeps its
 * width, scaled first where it does not, a grey box with its note where it has no picture.
 */
async function drawTile(
  band: RgbaImage,
  x: number,
  y: number,
  cell: { width: number; height: number; fontPx: number },
  tile: Placed,
): Promise<void> {
  let note = typeof tile === 'string' ? tile : undefined;
  if (typeof tile === 'object') {
    const ty = y + Math.floor((cell.height - scaledHeight(tile, cell.width)) / 2);
    try {
      if (tile.width === cell.width) {
        await decodePngInto(tile.png, { image: band, x, y: ty }, 'tile');
        if (!tile.opaque) flatten(band, x, ty, tile.width, tile.height);
      } else {
        blit(band, scaleToWidth(await decodePng(tile.png, 'tile'), cell.width), x, ty);
      }
    } catch {
      // A damaged tile spoils only itself: the rest of the cohort is still worth a figure.
      note = 'unreadable';
    }
  }
  if (note === undefined) return;
  fillRect(band, x, y, cell.width, cell.height, MISSING_COLOR);
  const h = Math.min(lineHeight(cell.fontPx), cell.height);
  const style: StripStyle = { fontPx: cell.fontPx, color: CAPTION_COLOR, background: MISSING_COLOR };
  const text = fitText(note, cell.width, cell.fontPx);
  copyPixels(
    band,
    drawTextStrip(cell.width, h, [{ text, x: 0, y: 0, width: cell.width }], style),
    x,
    y + Math.floor((cell.height - h) / 2),
  );
}

/**
 * The captions of the sheet's rows, drawn by the figures' text engine a strip of several rows
 * at a time (each call loads the typeface, so one call serves as many rows as
 * CAPTION_STRIP_BYTES allows), each row of captions a full-width strip on the background.
 */
class CaptionRows {
  private readonly perStrip: number;
  private readonly style: StripStyle;
  private strip: { first: number; image: RgbaImage } | undefined;

  constructor(
    private readonly tiles: readonly SheetTile[],
    private readonly geometry: { columns: number; tileWidth: number; width: number; line: number; fontPx: number },
  ) {
    this.perStrip = Math.max(1, Math.floor(CAPTION_STRIP_BYTES / (geometry.width * geometry.line * 4)));
    this.style = { fontPx: geometry.fontPx, color: CAPTION_COLOR, background: SHEET_BACKGROUND };
  }

  /** The captions of row `r`, as wide as the sheet and one line high. */
  row(r: number): RgbaImage {
    const { columns, tileWidth, width, line, fontPx } = this.geometry;
    if (!this.strip || r < this.strip.first || r >= this.strip.first + this.perStrip) {
      const first = r - (r % this.perStrip);
      const rows = Math.min(this.perStrip, Math.ceil(this.tiles.length / columns) - first);
      const texts = this.tiles.slice(first * columns, (first + rows) * columns).map((tile, i) => ({
        text: fitText(tile.label, tileWidth, fontPx),
        x: SHEET_MARGIN + (i % columns) * (tileWidth + SHEET_MARGIN),
        y: Math.floor(i / columns) * line,
        width: tileWidth,
      }));
      this.strip = { first, image: drawTextStrip(width, rows * line, texts, this.style) };
    }
    const offset = (r - this.strip.first) * line * width * 4;
    return { width, height: line, data: this.strip.image.data.subarray(offset, offset + line * width * 4) };
  }
}

/**
 * Reads the tile files of a planned sheet and renders it. A case with a note (the runner's
 * word that it failed or was skipped) shows the note, not its file: a file left by an earlier
 * run would pass for this run's result. A file that is gone shows `missing`, one that is no
 * PNG `unreadable`.
 */
export async function makeContactSheet(
  sheet: SheetLayout,
  notes: ReadonlyMap<string, string> = new Map(),
): Promise<Uint8Array> {
  const tiles = new Array<SheetTile>(sheet.tiles.length);
  let next = 0;
  const reader = async (): Promise<void> => {
    for (let i = next++; i < tiles.length; i = next++) tiles[i] = await readTile(sheet.tiles[i]!, notes);
  };
  await Promise.all(Array.from({ length: Math.min(READ_AHEAD, tiles.length) }, reader));
  return renderContactSheet(tiles, {
    ...(sheet.columns !== undefined ? { columns: sheet.columns } : {}),
    ...(sheet.tile_width !== undefined ? { tileWidth: sheet.tile_width } : {}),
  });
}

/** Tile files read at once: each read waits on the thread pool several times, so one at a time left it idle. */
const READ_AHEAD = 8;

async function readTile(tile: SheetLayout['tiles'][number], notes: ReadonlyMap<string, string>): Promise<SheetTile> {
  const note = notes.get(tile.case);
  if (note !== undefined) return { label: tile.label, note };
  try {
    return { label: tile.label, png: await readFile(tile.file) };
  } catch (err) {
    return { label: tile.label, note: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable' };
  }
}

/** Makes a sheet and writes it to `path` in one step, stamped with where it came from when that is known. */
export async function writeContactSheet(
  sheet: SheetLayout,
  notes: ReadonlyMap<string, string>,
  path: string,
  provenance?: FigureProvenance,
): Promise<void> {
  const png = await makeContactSheet(sheet, notes);
  // Not flushed to disk: every run draws its sheet again, so a sheet a power loss emptied is
  // made anew by the next run, as its screenshots are.
  await writeFileAtomic(path, provenance ? stampProvenance(png, provenance) : png, { durable: false });
}

/**
 * A tile's size from its PNG header; bytes that are no PNG make it `unreadable`. One whose
 * header reads but whose pixels do not keeps the place its header gave it, as a grey box.
 */
function place(tile: SheetTile): Placed {
  if (!tile.png) return tile.note ?? 'missing';
  try {
    const chunks = listChunks(tile.png);
    const { width, height, colorType } = readHeader(tile.png, chunks, 'tile');
    const opaque = (colorType === 0 || colorType === 2 || colorType === 3) && !chunks.some((c) => c.type === 'tRNS');
    return { png: tile.png, width, height, opaque };
  } catch {
    return 'unreadable';
  }
}

function scaledHeight(size: { width: number; height: number }, width: number): number {
  return Math.max(1, Math.round((size.height * width) / size.width));
}

function scaleToWidth(image: RgbaImage, width: number): RgbaImage {
  return resizeImage(image, width, scaledHeight(image, width));
}

const BACKGROUND_8 = SHEET_BACKGROUND.map((c) => Math.round(c * 255));

/** Copies `image` onto `sheet` at (x, y), over the background where it is not opaque. */
function blit(sheet: RgbaImage, image: RgbaImage, x: number, y: number): void {
  copyPixels(sheet, image, x, y);
  flatten(sheet, x, y, image.width, image.height);
}

/** Lays the translucent pixels of a rectangle of `sheet` over the sheet's background, making them opaque. */
function flatten(sheet: RgbaImage, x: number, y: number, width: number, height: number): void {
  const { data } = sheet;
  for (let row = y; row < y + height; row++) {
    for (let o = (row * sheet.width + x) * 4, end = o + width * 4; o < end; o += 4) {
      const alpha = data[o + 3]!;
      if (alpha === 255) continue;
      const a = alpha / 255;
      for (let c = 0; c < 3; c++) data[o + c] = Math.round(data[o + c]! * a + BACKGROUND_8[c]! * (1 - a));
      data[o + 3] = 255;
    }
  }
}

/**
 * Why a case has no tile image of this run: it failed, erred or did not run. A study up to
 * date passed, and has its image from the run that made it.
 */
export function sheetNotes(cases: readonly CaseSummary[]): Map<string, string> {
  const notes = new Map<string, string>();
  for (const c of cases) {
    if (c.status === 'failed' || c.status === 'error') notes.set(c.id, c.status);
    else if (c.status === 'skipped') notes.set(c.id, 'not run');
  }
  return notes;
}
