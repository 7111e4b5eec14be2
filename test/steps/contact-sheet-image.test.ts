import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PNG } from 'pngjs';
import { listChunks } from '../../src/image/png-chunks.js';
import type { RgbaImage } from '../../src/image/rgba.js';
import { makeContactSheet, renderContactSheet, type SheetTile } from '../../src/steps/post-run/contact-sheet-image.js';
import { image, png } from '../compare/images.js';

let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-contact-sheet-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Rgb = [number, number, number];

const BACKGROUND: Rgb = [26, 26, 26];
const TEXT: Rgb = [230, 230, 230];
const GREY: Rgb = [102, 102, 102];
const COLOURS: Rgb[] = [
  [200, 30, 30],
  [30, 200, 30],
  [30, 30, 200],
  [200, 200, 30],
  [30, 200, 200],
  [200, 30, 200],
];

/** A solid tile, encoded with pngjs rather than the code under test. */
function solid(width: number, height: number, colour: Rgb): Uint8Array {
  return png(image(width, height, () => colour));
}

function read(bytes: Uint8Array): RgbaImage {
  const p = PNG.sync.read(Buffer.from(bytes));
  return { width: p.width, height: p.height, data: new Uint8Array(p.data) };
}

function at(img: RgbaImage, x: number, y: number): Rgb {
  const o = (y * img.width + x) * 4;
  return [img.data[o]!, img.data[o + 1]!, img.data[o + 2]!];
}

/** Pixels of `colour` in a rectangle, and the columns and rows they span. */
function find(
  img: RgbaImage,
  x: number,
  y: number,
  w: number,
  h: number,
  colour: Rgb,
): { count: number; left: number; right: number; top: number; bottom: number } {
  let count = 0;
  let left = Infinity;
  let right = -Infinity;
  let top = Infinity;
  let bottom = -Infinity;
  for (let yy = y; yy < y + h; yy++) {
    for (let xx = x; xx < x + w; xx++) {
      const p = at(img, xx, yy);
      if (p[0] === colour[0] && p[1] === colour[1] && p[2] === colour[2]) {
        count++;
        left = Math.min(left, xx);
        right = Math.max(right, xx);
        top = Math.min(top, yy);
        bottom = Math.max(bottom, yy);
      }
    }
  }
  return { count, left, right, top, bottom };
}

/**
 * Text pixels in a rectangle: those that are not the colour under the text. The typeface is
 * anti-aliased, so its pixels are every blend from `under` to the text colour.
 */
function ink(
  img: RgbaImage,
  x: number,
  y: number,
  w: number,
  h: number,
  under: Rgb,
): { count: number; left: number; right: number; top: number; bottom: number; brightest: number } {
  let count = 0;
  let left = Infinity;
  let right = -Infinity;
  let top = Infinity;
  let bottom = -Infinity;
  let brightest = 0;
  for (let yy = y; yy < y + h; yy++) {
    for (let xx = x; xx < x + w; xx++) {
      const p = at(img, xx, yy);
      if (p[0] === under[0] && p[1] === under[1] && p[2] === under[2]) continue;
      assert.ok(
        p[0] === p[1] && p[1] === p[2] && p[0] > under[0] && p[0] <= TEXT[0],
        `(${xx}, ${yy}) is ${p.join(',')}, no blend of the text colour over ${under.join(',')}`,
      );
      count++;
      left = Math.min(left, xx);
      right = Math.max(right, xx);
      top = Math.min(top, yy);
      bottom = Math.max(bottom, yy);
      brightest = Math.max(brightest, p[0]);
    }
  }
  return { count, left, right, top, bottom, brightest };
}

/** Captions under tiles narrower than 192 px are set at 10 px: one line of DejaVu Sans is 12 px, with 4 px above and below. */
const CAPTION = 4 + 12 + 4;

test('the grid: columns given, tiles at their own width; every tile in its cell, in order', async () => {
  const tiles: SheetTile[] = COLOURS.slice(0, 5).map((c, i) => ({ label: `s${i}`, png: solid(40, 30, c) }));
  const sheet = read(await renderContactSheet(tiles, { columns: 2 }));
  // 2 columns of 40 px and 3 rows of 30 px tile + the caption, 8 px around and between.
  assert.deepEqual([sheet.width, sheet.height], [2 * 40 + 3 * 8, 3 * (30 + CAPTION) + 4 * 8]);
  for (let i = 0; i < 5; i++) {
    const x = 8 + (i % 2) * 48;
    const y = 8 + Math.floor(i / 2) * (30 + CAPTION + 8);
    assert.deepEqual(find(sheet, x, y, 40, 30, COLOURS[i]!).count, 40 * 30, `tile ${i} fills its place`);
  }
  assert.deepEqual(at(sheet, 0, 0), BACKGROUND);
  const sixth = 8 + 2 * (30 + CAPTION + 8);
  assert.deepEqual(
    find(sheet, 56, sixth, 40, 30 + CAPTION, BACKGROUND).count,
    40 * (30 + CAPTION),
    'the sixth cell is empty',
  );
});

test('tiles are scaled to the tile width keeping their aspect; default columns: ceil(sqrt(n))', async () => {
  const tiles: SheetTile[] = COLOURS.slice(0, 5).map((c, i) => ({ label: `s${i}`, png: solid(40, 30, c) }));
  const sheet = read(await renderContactSheet(tiles, { tileWidth: 20 }));
  // 3 columns of 20 px, 2 rows of 15 px tile + the caption.
  assert.deepEqual([sheet.width, sheet.height], [3 * 20 + 4 * 8, 2 * (15 + CAPTION) + 3 * 8]);
  assert.equal(find(sheet, 8 + 28, 8, 20, 15, COLOURS[1]!).count, 20 * 15);
  assert.deepEqual(at(sheet, 8 + 28, 8 + 15), BACKGROUND, 'the scaled tile is 15 px high');
  // A tile of another shape is scaled to the same width and centred in the row's height.
  const mixed = read(
    await renderContactSheet(
      [
        { label: 'a', png: solid(40, 40, COLOURS[0]!) },
        { label: 'b', png: solid(80, 40, COLOURS[1]!) },
      ],
      { columns: 2 },
    ),
  );
  assert.deepEqual([mixed.width, mixed.height], [2 * 40 + 3 * 8, 40 + CAPTION + 2 * 8]);
  assert.equal(find(mixed, 56, 8, 40, 40, COLOURS[1]!).count, 40 * 20);
  assert.deepEqual(
    [at(mixed, 60, 17), at(mixed, 60, 18), at(mixed, 60, 37), at(mixed, 60, 38)],
    [BACKGROUND, COLOURS[1], COLOURS[1], BACKGROUND],
  );
});

test('captions are drawn under their tile, centred, in the text colour', async () => {
  const sheet = read(
    await renderContactSheet(
      [
        { label: 'alpha', png: solid(60, 20, COLOURS[0]!) },
        { label: '', png: solid(60, 20, COLOURS[1]!) },
      ],
      { columns: 2 },
    ),
  );
  const caption = ink(sheet, 8, 8 + 20, 60, CAPTION, BACKGROUND);
  assert.ok(caption.count > 40, `only ${caption.count} text pixels`);
  assert.ok(caption.brightest >= 200, 'the stems reach the text colour');
  // `alpha` at 10 px is about 30 px wide, centred in 60.
  assert.ok(
    caption.right - caption.left >= 24 && caption.right - caption.left <= 36,
    `${caption.left}..${caption.right}`,
  );
  assert.ok(Math.abs(caption.left - 8 - (59 - (caption.right - 8))) <= 2, 'centred under the tile');
  assert.ok(
    caption.top >= 32 && caption.bottom < 32 + 12,
    `rows ${caption.top}..${caption.bottom}: in its line, 4 px below the tile`,
  );
  assert.equal(find(sheet, 8, 8, 60, 20, COLOURS[0]!).count, 60 * 20, 'no text over the image');
  assert.equal(ink(sheet, 76, 28, 60, CAPTION, BACKGROUND).count, 0, 'an empty label draws nothing');
  // Other words, other pixels.
  const other = read(
    await renderContactSheet(
      [
        { label: 'omega', png: solid(60, 20, COLOURS[0]!) },
        { label: '', png: solid(60, 20, COLOURS[1]!) },
      ],
      { columns: 2 },
    ),
  );
  assert.notDeepEqual(other.data, sheet.data);
});

test('a label too long for its tile is cut with an ellipsis', async () => {
  const tile = solid(40, 20, COLOURS[2]!);
  const label = 'study-with-a-long-name';
  const long = await renderContactSheet([{ label, png: tile }]);
  // The sheet shows a beginning of the label and an ellipsis: the same pixels as the shortest
  // such text given as the label (a longer one is cut to the same).
  let cut = 0;
  for (let n = 1; n < label.length && cut === 0; n++)
    if (
      Buffer.from(long).equals(
        Buffer.from(await renderContactSheet([{ label: `${label.slice(0, n)}\u2026`, png: tile }])),
      )
    )
      cut = n;
  assert.ok(cut >= 2 && cut <= 6, `40 px at 10 px hold a few letters and the ellipsis, not ${cut}`);
  assert.ok(!Buffer.from(long).equals(Buffer.from(await renderContactSheet([{ label: 'study', png: tile }]))));
  const caption = ink(read(long), 0, 28, 56, CAPTION, BACKGROUND);
  assert.ok(caption.left >= 8 && caption.right < 48, 'the caption stays under its tile');
});

test('a tile without an image is a grey box with its note', async () => {
  const sheet = read(
    await renderContactSheet(
      [
        { label: 'ok', png: solid(50, 40, COLOURS[0]!) },
        { label: 'bad', note: 'failed' },
      ],
      { columns: 2 },
    ),
  );
  const box = { x: 8 + 58, y: 8, w: 50, h: 40 };
  // Every pixel of the box is its grey or the note's text over it.
  const text = ink(sheet, box.x, box.y, box.w, box.h, GREY);
  assert.ok(text.count > 20 && text.brightest >= 200, 'the box is grey with the note on it');
  assert.ok(ink(sheet, box.x, box.y + box.h, box.w, CAPTION, BACKGROUND).count > 0, 'the box has its caption');
  const missing = read(
    await renderContactSheet([{ label: 'ok', png: solid(50, 40, COLOURS[0]!) }, { label: 'bad' }], { columns: 2 }),
  );
  assert.notDeepEqual(ink(missing, box.x, box.y, box.w, box.h, GREY), text, 'another note, other text');
  // Bytes that are no PNG spoil only their own tile.
  const broken = read(
    await renderContactSheet(
      [
        { label: 'ok', png: solid(50, 40, COLOURS[0]!) },
        { label: 'bad', png: new Uint8Array([1, 2, 3]) },
      ],
      { columns: 2 },
    ),
  );
  assert.equal(find(broken, box.x, box.y, box.w, box.h, GREY).count > 1000, true);
});

test('a tile whose header reads but whose pixels do not is a grey box in the place its header gave it', async () => {
  const good = solid(40, 30, COLOURS[0]!);
  // Image data that does not inflate, in a file whose chunks and header (40x50) are intact.
  const cut = solid(40, 50, COLOURS[1]!).slice();
  const idat = listChunks(cut).find((c) => c.type === 'IDAT')!;
  cut.fill(0xff, idat.dataOffset, idat.dataOffset + idat.length);
  const sheet = read(
    await renderContactSheet(
      [
        { label: 'a', png: good },
        { label: 'b', png: cut },
      ],
      { columns: 2 },
    ),
  );
  assert.deepEqual(
    [sheet.width, sheet.height],
    [2 * 40 + 3 * 8, 50 + CAPTION + 2 * 8],
    'the cell is as high as the header says',
  );
  const box = { x: 56, y: 8, w: 40, h: 50 };
  assert.ok(ink(sheet, box.x, box.y, box.w, box.h, GREY).count > 20, 'a grey box with its note');
  assert.equal(find(sheet, 8, 18, 40, 30, COLOURS[0]!).count, 40 * 30, 'the good tile is centred in the cell');
});

test('translucent tiles are laid over the sheet background, at their own width and scaled', async () => {
  const tile = png(
    image(20, 10, (x) => [200, 100, 0, x < 10 ? 255 : 51]),
    { colorType: 6 },
  );
  // 51/255 = 0.2 of the colour over 0.8 of the background (26).
  const blended: Rgb = [Math.round(200 * 0.2 + 26 * 0.8), Math.round(100 * 0.2 + 26 * 0.8), Math.round(26 * 0.8)];
  const own = read(await renderContactSheet([{ label: '', png: tile }]));
  assert.equal(find(own, 8, 8, 10, 10, [200, 100, 0]).count, 100);
  assert.equal(find(own, 18, 8, 10, 10, blended).count, 100);
  const scaled = read(await renderContactSheet([{ label: '', png: tile }], { tileWidth: 40 }));
  assert.equal(find(scaled, 8, 8, 18, 20, [200, 100, 0]).count, 18 * 20);
  assert.equal(find(scaled, 30, 8, 18, 20, blended).count, 18 * 20);
  for (const img of [own, scaled]) for (let i = 3; i < img.data.length; i += 4) assert.equal(img.data[i], 255);
});

test('the same tiles give the same bytes', async () => {
  const tiles = (): SheetTile[] => [
    { label: 'one', png: png(image(33, 21, (x, y) => [x * 7, y * 11, (x * y) & 255])) },
    { label: 'two', note: 'failed' },
    { label: 'three', png: solid(17, 40, COLOURS[3]!) },
  ];
  const a = await renderContactSheet(tiles(), { tileWidth: 30 });
  const b = await renderContactSheet(tiles(), { tileWidth: 30 });
  assert.deepEqual(a, b);
  assert.deepEqual(Buffer.from(a).subarray(0, 8), Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
});

test('one study: one cell, whatever the columns asked', async () => {
  const sheet = read(
    await renderContactSheet([{ label: 'study-001', png: solid(256, 200, COLOURS[4]!) }], { columns: 6 }),
  );
  // From 192 px wide, captions are set at 16 px: a line of 19 px.
  assert.deepEqual([sheet.width, sheet.height], [256 + 16, 200 + 4 + 19 + 4 + 16]);
  assert.equal(find(sheet, 8, 8, 256, 200, COLOURS[4]!).count, 256 * 200);
  const caption = ink(sheet, 0, 208, sheet.width, sheet.height - 208, BACKGROUND);
  // `d` reaches up to the ascenders' height and `y` down below the baseline, inside the line.
  assert.ok(
    caption.top >= 212 && caption.top <= 216 && caption.bottom >= 226 && caption.bottom < 212 + 19,
    `rows ${caption.top}..${caption.bottom}`,
  );
  assert.ok(Math.abs(caption.left - 8 - (256 - 1 - (caption.right - 8))) <= 2, 'centred');
});

test('makeContactSheet reads the tiles: a missing file says so, a failed case says its note', async () => {
  await mkdir(join(dir, 'a'), { recursive: true });
  await mkdir(join(dir, 'c'), { recursive: true });
  await writeFile(join(dir, 'a', 'axial.png'), solid(30, 30, COLOURS[0]!));
  await writeFile(join(dir, 'c', 'axial.png'), solid(30, 30, COLOURS[2]!));
  const sheet = {
    save: join(dir, 'sheet.png'),
    columns: 3,
    tiles: ['a', 'b', 'c'].map((name) => ({ case: name, file: join(dir, name, 'axial.png'), label: `study ${name}` })),
  };
  const made = await makeContactSheet(sheet);
  const expected = await renderContactSheet(
    [
      { label: 'study a', png: solid(30, 30, COLOURS[0]!) },
      { label: 'study b', note: 'missing' },
      { label: 'study c', png: solid(30, 30, COLOURS[2]!) },
    ],
    { columns: 3 },
  );
  assert.deepEqual(read(made), read(expected));
  // The runner's note wins over a file left from an earlier run.
  const failed = read(await makeContactSheet({ ...sheet, tile_width: 30 }, new Map([['c', 'failed']])));
  assert.equal(find(failed, 8 + 2 * 38, 8, 30, 30, COLOURS[2]!).count, 0);
  assert.ok(find(failed, 8 + 2 * 38, 8, 30, 30, GREY).count > 0);
  assert.deepEqual(
    read(
      await renderContactSheet(
        [
          { label: 'study a', png: solid(30, 30, COLOURS[0]!) },
          { label: 'study b', note: 'missing' },
          { label: 'study c', note: 'failed' },
        ],
        { columns: 3 },
      ),
    ),
    failed,
  );
});
