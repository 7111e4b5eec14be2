import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  encodeImage,
  frameApplication,
  RenderInputError,
  renderView,
  resizeImage,
  tileCanvas,
} from '../../../src/sim/render/index.js';
import { filled } from '../../../src/image/pixels.js';
import { isColor, pixelsWhere, px, view2d } from './fixtures.js';

const red = filled(4, 6, [1, 0, 0]);
const green = filled(4, 6, [0, 1, 0]);

test('tileCanvas places each tile at its corner over the background; tiles past the edge are clipped', () => {
  const canvas = tileCanvas(
    10,
    6,
    [
      { x: 0, y: 0, image: red },
      { x: 6, y: 0, image: green },
    ],
    [0.5, 0.5, 0.5],
  );
  assert.deepEqual([canvas.width, canvas.height], [10, 6]);
  for (let y = 0; y < 6; y++) {
    assert.deepEqual(px(canvas, 3, y), [255, 0, 0, 255]);
    assert.deepEqual(px(canvas, 4, y), [128, 128, 128, 255], 'the splitter between');
    assert.deepEqual(px(canvas, 5, y), [128, 128, 128, 255]);
    assert.deepEqual(px(canvas, 6, y), [0, 255, 0, 255]);
  }
  const clipped = tileCanvas(
    6,
    4,
    [
      { x: -2, y: 2, image: red },
      { x: 4, y: -3, image: green },
    ],
    [0, 0, 0],
  );
  assert.deepEqual(pixelsWhere(clipped, isColor(255, 0, 0)).length, 2 * 2, 'two columns, two rows of red remain');
  assert.deepEqual(pixelsWhere(clipped, isColor(0, 255, 0)).length, 2 * 3);
  const over = tileCanvas(
    4,
    6,
    [
      { x: 0, y: 0, image: red },
      { x: 0, y: 0, image: green },
    ],
    [0, 0, 0],
  );
  assert.equal(pixelsWhere(over, isColor(0, 255, 0)).length, 24, 'a later tile covers an earlier one');
});

test('frameApplication: title bar above, border around, the canvas untouched inside, the title in the bar', () => {
  const canvas = tileCanvas(40, 20, [{ x: 0, y: 0, image: red }], [0, 0, 1]);
  const app = frameApplication(canvas, 'MITK');
  assert.deepEqual([app.width, app.height], [40 + 8, 20 + 28 + 4]);
  for (let y = 0; y < 20; y++) for (let x = 0; x < 40; x++) assert.deepEqual(px(app, x + 4, y + 28), px(canvas, x, y));
  const titleText = (c: number[]): boolean => c[0]! > 200 && c[1]! > 200 && c[2]! > 200;
  const text = pixelsWhere(app, titleText);
  assert.ok(text.length > 30, 'the title is written');
  assert.ok(
    text.every(([x, y]) => y < 24 && x < app.width - 4),
    'within the bar, clear of the border',
  );
  const untitled = frameApplication(canvas, '');
  assert.deepEqual(pixelsWhere(untitled, titleText), []);
  assert.notDeepEqual(frameApplication(canvas, 'ABCD').data, app.data, 'another title, other pixels');
  const long = frameApplication(canvas, 'A title much longer than the window is wide');
  assert.ok(
    pixelsWhere(long, titleText).every(([x]) => x < long.width - 4),
    'a long title stops at the border',
  );
});

test('sizes and buffers that do not fit are typed errors that say what is wrong', () => {
  const expectInput = (fn: () => unknown, pattern: RegExp): void => {
    assert.throws(fn, (err: unknown) => err instanceof RenderInputError && pattern.test(err.message));
  };
  expectInput(
    () => tileCanvas(0, 10, [], [0, 0, 0]),
    /canvas width must be a whole number of pixels from 1 to \d+, got 0/,
  );
  expectInput(() => tileCanvas(10, 2.5, [], [0, 0, 0]), /canvas height .* got 2\.5/);
  expectInput(
    () => tileCanvas(10, 10, [{ x: 0, y: 0, image: { width: 4, height: 4, data: new Uint8Array(10) } }], [0, 0, 0]),
    /tile 0 has 10 bytes of pixels, but 4x4 RGBA needs 64/,
  );
  expectInput(() => renderView({ ...view2d('axial', [0, 0, 0]), width: 0 }, []), /2d view width/);
  expectInput(() => resizeImage(red, 0, 5), /resize width/);
  expectInput(() => resizeImage(red, 5, Number.NaN), /resize height .* got NaN/);
  expectInput(
    () => encodeImage({ width: 2, height: 2, data: new Uint8Array(3) }, 'png'),
    /image to encode has 3 bytes/,
  );
  expectInput(
    () => frameApplication({ width: -1, height: 2, data: new Uint8Array(0) }, 't'),
    /application canvas width/,
  );
});
