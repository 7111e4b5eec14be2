import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drawText, measureText } from '../../../src/sim/render/index.js';
import { filled } from '../../../src/image/pixels.js';
import type { RgbaImage } from '../../../src/sim/render/types.js';
import { isColor, pixelsWhere } from './fixtures.js';

const white = isColor(255, 255, 255);
const blank = (w: number, h: number): RgbaImage => filled(w, h, [0, 0, 0]);
const ink = (text: string, scale = 1): Array<[number, number]> => {
  const size = measureText(text, scale);
  const image = blank(size.width + 2, size.height + 2);
  drawText(image, 1, 1, text, [1, 1, 1], scale);
  return pixelsWhere(image, white);
};

test("'T' is a 5-pixel bar over a centred 6-pixel stem", () => {
  const bar = [1, 2, 3, 4, 5].map((x) => [x, 1]);
  const stem = [2, 3, 4, 5, 6, 7].map((y) => [3, y]);
  assert.deepEqual(ink('T'), [...bar, ...stem]);
});

test('scale makes each font pixel a square', () => {
  const small = ink('T');
  const big = ink('T', 3);
  assert.equal(big.length, small.length * 9);
  const image = blank(20, 24);
  drawText(image, 0, 0, 'T', [1, 1, 1], 3);
  assert.deepEqual(
    pixelsWhere(image, white).filter(([, y]) => y < 3).length,
    15 * 3,
    'the bar is 15 pixels wide and 3 tall',
  );
});

test('measureText: 6-pixel advance without trailing space, 8-pixel lines', () => {
  assert.deepEqual(measureText('ab'), { width: 11, height: 7 });
  assert.deepEqual(measureText('ab\nc'), { width: 11, height: 15 });
  assert.deepEqual(measureText('ab', 2), { width: 22, height: 14 });
  assert.deepEqual(measureText(''), { width: 0, height: 7 });
  assert.deepEqual(measureText('x', 0), measureText('x', 1), 'a bad scale draws at 1');
});

test('every printable ASCII character has its own glyph; space is blank', () => {
  const seen = new Map<string, string>();
  for (let code = 33; code <= 126; code++) {
    const ch = String.fromCharCode(code);
    const key = JSON.stringify(ink(ch));
    assert.notEqual(key, '[]', `${ch} draws something`);
    assert.ok(!seen.has(key), `${ch} looks like ${seen.get(key)}`);
    seen.set(key, ch);
  }
  assert.deepEqual(ink(' '), []);
});

test('characters outside printable ASCII are drawn as ?; text is clipped at the image edges', () => {
  assert.deepEqual(ink('é'), ink('?'));
  assert.deepEqual(ink('\t'), ink('?'));
  const image = blank(8, 8);
  drawText(image, -3, -3, 'MITK Workbench', [1, 1, 1], 2);
  drawText(image, 100, 100, 'far away', [1, 1, 1]);
  assert.ok(pixelsWhere(image, white).length > 0);
});

test('a new line starts under the first character, in the given colour, over what is there', () => {
  const image = filled(12, 16, [0, 0, 1]);
  drawText(image, 0, 0, 'I\nI', [1, 0, 0]);
  const red = pixelsWhere(image, isColor(255, 0, 0));
  assert.deepEqual([...new Set(red.map(([x]) => x))].sort(), [1, 2, 3], "'I' is 3 wide in columns 1..3");
  assert.ok(red.some(([, y]) => y === 8) && !red.some(([, y]) => y === 7), 'the second line starts 8 rows down');
  assert.equal(pixelsWhere(image, isColor(0, 0, 255)).length, 12 * 16 - red.length, 'the rest stays');
});
