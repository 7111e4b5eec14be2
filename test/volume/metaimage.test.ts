import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { readImageBytes, readImageFile } from '../../src/volume/read-image.js';
import { writeImageBytes } from '../../src/volume/write-image.js';
import { assertGeometry, assertReadError, encode, sampleVolume, withData, withTempDir } from './fixtures.js';

const values24 = Array.from({ length: 24 }, (_, i) => i * 25 - 100);

function mha(lines: string[], data: Uint8Array): Uint8Array {
  return withData(`${lines.join('\n')}\nElementDataFile = LOCAL\n`, data);
}

test('MetaImage round trip keeps geometry, values and component type', () => {
  for (const componentType of ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'float32', 'float64']) {
    const frames = sampleVolume().frames.map((f) =>
      f.map((v) => (componentType.endsWith('8') ? Math.abs(v) % 120 : Math.abs(v))),
    );
    const volume = sampleVolume({ componentType, frames });
    const back = readImageBytes(writeImageBytes(volume, 'mha'), 'mha');
    assert.equal(back.componentType, componentType);
    assertGeometry(back, volume);
    assert.deepEqual([...back.frames[0]!], [...frames[0]!]);
  }
  const timed = sampleVolume({
    frames: [0, 1].map((t) => new Float32Array(60).fill(t + 1)),
    timeStepMs: 300,
    timeOriginMs: 50,
  });
  const back = readImageBytes(writeImageBytes(timed, 'mha'), 'mha');
  assert.equal(back.frames.length, 2);
  assert.equal(back.timeStepMs, 300);
  assert.equal(back.timeOriginMs, 50);
  assertGeometry(back, timed);
});

test('TransformMatrix rows are the index axes, Offset the first voxel centre', () => {
  const bytes = mha(
    [
      'ObjectType = Image',
      'NDims = 3',
      'DimSize = 4 3 2',
      'ElementType = MET_UCHAR',
      'ElementSpacing = 2 3 4',
      'Offset = 1 2 3',
      'TransformMatrix = 0 1 0 0 0 1 1 0 0',
    ],
    new Uint8Array(24),
  );
  assertGeometry(readImageBytes(bytes, 'mha'), {
    spacing: [2, 3, 4],
    origin: [1, 2, 3],
    direction: [0, 0, 1, 1, 0, 0, 0, 1, 0],
  });
  const aliases = mha(
    [
      'NDims = 3',
      'DimSize = 4 3 2',
      'ElementType = MET_UCHAR',
      'ElementSize = 2 3 4',
      'Position = 1 2 3',
      'Orientation = 1 0 0 0 1 0 0 0 1',
    ],
    new Uint8Array(24),
  );
  assertGeometry(readImageBytes(aliases, 'mha'), {
    spacing: [2, 3, 4],
    origin: [1, 2, 3],
    direction: [1, 0, 0, 0, 1, 0, 0, 0, 1],
  });
});

test('.mhd + .raw pair, big-endian, and zlib-compressed LOCAL data', async () => {
  await withTempDir(async (dir) => {
    await writeFile(join(dir, 'scan.raw'), encode(values24, 'int16', false));
    await writeFile(
      join(dir, 'scan.mhd'),
      'ObjectType = Image\nNDims = 3\nDimSize = 4 3 2\nElementType = MET_SHORT\nBinaryDataByteOrderMSB = True\nElementDataFile = scan.raw\n',
    );
    assert.deepEqual([...(await readImageFile(join(dir, 'scan.mhd'))).frames[0]!], values24);
  });
  const compressed = mha(
    ['NDims = 3', 'DimSize = 4 3 2', 'ElementType = MET_FLOAT', 'CompressedData = True', 'ElementByteOrderMSB = False'],
    deflateSync(encode(values24, 'float32', true)),
  );
  assert.deepEqual([...readImageBytes(compressed, 'mha').frames[0]!], values24);
  const text = mha(
    ['NDims = 2', 'DimSize = 3 2', 'ElementType = MET_FLOAT', 'BinaryData = False'],
    new TextEncoder().encode('1 2 3\n4 5 6.5\n'),
  );
  assert.deepEqual([...readImageBytes(text, 'mha').frames[0]!], [1, 2, 3, 4, 5, 6.5]);
});

test('bad MetaImage headers give FILE_READ_ERROR naming the problem', () => {
  const ok = ['NDims = 3', 'DimSize = 4 3 2', 'ElementType = MET_SHORT'];
  const cases: [string[], Uint8Array, RegExp][] = [
    [[...ok, 'ElementNumberOfChannels = 3'], new Uint8Array(144), /ElementNumberOfChannels is 3: only single-channel/],
    [['NDims = 5', 'DimSize = 1 1 1 1 1', 'ElementType = MET_SHORT'], new Uint8Array(2), /NDims 5 is not supported/],
    [
      ['NDims = 3', 'DimSize = 4 3', 'ElementType = MET_SHORT'],
      new Uint8Array(48),
      /'DimSize' has 2 values, NDims is 3/,
    ],
    [
      ['NDims = 3', 'DimSize = 4 3 2', 'ElementType = MET_STRING'],
      new Uint8Array(48),
      /ElementType 'MET_STRING' is not supported/,
    ],
    [ok.slice(0, 2), new Uint8Array(48), /missing 'ElementType'/],
    [ok, new Uint8Array(10), /MetaImage: data is 10 bytes, header needs 48 \(4x3x2 int16\)/],
    [[...ok, 'ElementSpacing = 1 x 1'], new Uint8Array(48), /'ElementSpacing' value 1: 'x' is not a number/],
    [[...ok, 'CompressedData = True'], new Uint8Array([0x78, 0x9c, 1, 2]), /zlib data is corrupt or truncated/],
  ];
  for (const [lines, data, pattern] of cases)
    assertReadError(() => readImageBytes(mha(lines, data), 'mha'), 'FILE_READ_ERROR', pattern);
  assertReadError(
    () => readImageBytes(new TextEncoder().encode('NDims = 3\nDimSize = 4 3 2\n'), 'mha'),
    'FILE_READ_ERROR',
    /missing 'ElementDataFile'/,
  );
  const detached = new TextEncoder().encode(
    'NDims = 3\nDimSize = 4 3 2\nElementType = MET_SHORT\nElementDataFile = scan.raw\n',
  );
  assertReadError(
    () => readImageBytes(detached, 'mhd'),
    'FILE_READ_ERROR',
    /data file 'scan\.raw'.*missing.*file-reference transfer/,
  );
});
