import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../files/atomic-write.js';
import type { Rgb, RgbaImage } from '../../image/rgba.js';
import { decodePng } from '../../image/png-decode.js';
import { encodePng } from '../../image/png-encode.js';
import { stampProvenance, type FigureProvenance } from '../../files/provenance.js';
import type { CaseSummary } from '../../result/result.js';
import { ADVANCE, drawText, GLYPH_HEIGHT, measureText } from '../../image/bitmap-font.js';
import { fillRect } from '../../image/pixels.js';
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
/** Letters at scale 1 are 7 px high: on a tile as wide as a usual screenshot they are doubled to stay readable. */
const LARGE_TEXT_FROM = 192;
const ELLIPSIS = '...';

/**
 * One picture of a whole cohort: every tile scaled to one width, in rows on a dark background,
 * each with its caption below; a tile without an image is a grey box saying why. Tiles of
 * different heights share one cell height, centred in it, so rows and columns line up. Pure
 * and deterministic: the same tiles give the same bytes.
 */
export async function renderContactSheet(tiles: readonly SheetTile[], options: SheetOptions = {}): Promise<Uint8Array> {
  const list = tiles.length > 0 ? tiles : [{ label: '', note: 'no studies' }];
  const images: (RgbaImage | string)[] = [];
  for (const t of list) images.push(t.png ? await decodeTile(t) : (t.note ?? 'missing'));
  const first = images.find((i): i is RgbaImage => typeof i !== 'string');
  const tileWidth = options.tileWidth ?? first?.width ?? FALLBACK_WIDTH;
  const scaled = images.map((i) => (typeof i === 'string' ? i : scaleToWidth(i, tileWidth)));
  const heights = scaled.filter((i): i is RgbaImage => typeof i !== 'string').map((i) => i.height);
  const tileHeight = heights.length > 0 ? Math.max(...heights) : tileWidth;

  const columns = Math.min(list.length, Math.max(1, Math.floor(options.columns ?? Math.ceil(Math.sqrt(list.length)))));
  const rows = Math.ceil(list.length / columns);
  const scale = tileWidth >= LARGE_TEXT_FROM ? 2 : 1;
  const cellHeight = tileHeight + 2 * CAPTION_PADDING + GLYPH_HEIGHT * scale;
  const width = columns * tileWidth + (columns + 1) * SHEET_MARGIN;
  const height = rows * cellHeight + (rows + 1) * SHEET_MARGIN;
  const sheet: RgbaImage = { width, height, data: new Uint8Array(width * height * 4) };
  fillRect(sheet, 0, 0, width, height, SHEET_BACKGROUND);

  scaled.forEach((image, i) => {
    const x = SHEET_MARGIN + (i % columns) * (tileWidth + SHEET_MARGIN);
    const y = SHEET_MARGIN + Math.floor(i / columns) * (cellHeight + SHEET_MARGIN);
    if (typeof image === 'string') {
      fillRect(sheet, x, y, tileWidth, tileHeight, MISSING_COLOR);
      drawCentred(sheet, x, y + Math.floor((tileHeight - GLYPH_HEIGHT * scale) / 2), tileWidth, image, scale);
    } else {
      blit(sheet, image, x, y + Math.floor((tileHeight - image.height) / 2));
    }
    drawCentred(sheet, x, y + tileHeight + CAPTION_PADDING, tileWidth, list[i]?.label ?? '', scale);
  });
  return encodePng(sheet);
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
  const tiles: SheetTile[] = [];
  for (const t of sheet.tiles) {
    const note = notes.get(t.case);
    if (note !== undefined) {
      tiles.push({ label: t.label, note });
      continue;
    }
    try {
      tiles.push({ label: t.label, png: await readFile(t.file) });
    } catch (err) {
      tiles.push({ label: t.label, note: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable' });
    }
  }
  return renderContactSheet(tiles, {
    ...(sheet.columns !== undefined ? { columns: sheet.columns } : {}),
    ...(sheet.tile_width !== undefined ? { tileWidth: sheet.tile_width } : {}),
  });
}

/** Makes a sheet and writes it to `path` in one step, stamped with where it came from when that is known. */
export async function writeContactSheet(
  sheet: SheetLayout,
  notes: ReadonlyMap<string, string>,
  path: string,
  provenance?: FigureProvenance,
): Promise<void> {
  const png = await makeContactSheet(sheet, notes);
  await writeFileAtomic(path, provenance ? stampProvenance(png, provenance) : png);
}

/** A damaged tile spoils only itself: the rest of the cohort is still worth a figure. */
async function decodeTile(tile: SheetTile): Promise<RgbaImage | string> {
  try {
    return await decodePng(tile.png ?? new Uint8Array(0), `tile ${tile.label}`);
  } catch {
    return 'unreadable';
  }
}

function scaleToWidth(image: RgbaImage, width: number): RgbaImage {
  const height = Math.max(1, Math.round((image.height * width) / image.width));
  return resizeImage(image, width, height);
}

/** Copies `image` onto `sheet` at (x, y), over the background where it is transparent. */
function blit(sheet: RgbaImage, image: RgbaImage, x: number, y: number): void {
  const bg = SHEET_BACKGROUND.map((c) => Math.round(c * 255));
  for (let row = 0; row < image.height; row++) {
    let o = ((y + row) * sheet.width + x) * 4;
    for (let p = row * image.width * 4, end = p + image.width * 4; p < end; p += 4, o += 4) {
      const a = image.data[p + 3]! / 255;
      for (let c = 0; c < 3; c++) sheet.data[o + c] = Math.round(image.data[p + c]! * a + bg[c]! * (1 - a));
      sheet.data[o + 3] = 255;
    }
  }
}

/** Draws `text` centred in a span `width` wide, cut with an ellipsis when it does not fit. */
function drawCentred(sheet: RgbaImage, x: number, y: number, width: number, text: string, scale: number): void {
  const shown = fit(text.replace(/\s+/g, ' '), width, scale);
  const w = measureText(shown, scale).width;
  drawText(sheet, x + Math.floor((width - w) / 2), y, shown, CAPTION_COLOR, scale);
}

function fit(text: string, width: number, scale: number): string {
  // n characters take n * ADVANCE - 1 font pixels; the font draws one glyph per code point.
  const room = Math.floor((width / scale + 1) / ADVANCE);
  const chars = [...text];
  if (chars.length <= room) return text;
  return room <= ELLIPSIS.length
    ? chars.slice(0, room).join('')
    : `${chars.slice(0, room - ELLIPSIS.length).join('')}${ELLIPSIS}`;
}

/**
 * Why a case has no tile image of this run: it failed, erred or did not run. A study skipped
 * as up to date still has its image from the run that made it.
 */
export function sheetNotes(cases: readonly CaseSummary[]): Map<string, string> {
  const notes = new Map<string, string>();
  for (const c of cases) {
    if (c.status === 'failed' || c.status === 'error') notes.set(c.id, c.status);
    else if (c.status === 'skipped' && !c.skippedReason?.startsWith('up to date')) notes.set(c.id, 'not run');
  }
  return notes;
}
