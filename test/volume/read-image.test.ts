import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  extensionFormat,
  imageFormat,
  ImageReadError,
  readImageBytes,
  readImageFile,
} from '../../src/volume/read-image.js';
import { writeImageBytes } from '../../src/volume/write-image.js';
import { mulberry32 } from '../../src/sim/phantom.js';
import { assertReadError, assertReadRejects, sampleVolume, withTempDir } from './fixtures.js';

test('the format follows the file name, case-insensitively, .nii.gz included', () => {
  const cases: [string, string][] = [
    ['ct.nrrd', 'nrrd'],
    ['CT.NRRD', 'nrrd'],
    ['a.b.nhdr', 'nhdr'],
    ['brain.nii', 'nii'],
    ['brain.NII.GZ', 'nii.gz'],
    ['x.gz', 'gz'],
    ['scan.MHA', 'mha'],
    ['scan.mhd', 'mhd'],
  ];
  for (const [name, format] of cases) assert.equal(imageFormat(name), format, name);
  for (const [extension, format] of [
    ['nii.gz', 'nii.gz'],
    ['.NRRD', 'nrrd'],
    ['gz', 'gz'],
    ['mhd', 'mhd'],
  ] as const)
    assert.equal(extensionFormat(extension), format);
  for (const name of ['photo.png', 'mesh.stl', 'noextension', 'ct.nrrd.bak', '']) {
    assertReadError(() => imageFormat(name), 'UNSUPPORTED_FORMAT', /\.nrrd, \.nhdr, \.nii, \.nii\.gz, \.mha or \.mhd/);
  }
  assertReadError(
    () => readImageBytes(new Uint8Array(10), 'png'),
    'UNSUPPORTED_FORMAT',
    /'\.png' is not an image format/,
  );
  assertReadError(() => readImageBytes(new Uint8Array(10), ''), 'UNSUPPORTED_FORMAT', /no format was given/);
});

test('readImageFile reads every written format and reports a missing file as FILE_READ_ERROR', async () => {
  await withTempDir(async (dir) => {
    const volume = sampleVolume();
    for (const [name, format] of [
      ['a.nrrd', 'nrrd'],
      ['b.nii', 'nii'],
      ['c.nii.gz', 'nii.gz'],
      ['d.mha', 'mha'],
    ] as const) {
      await writeFile(join(dir, name), writeImageBytes(volume, format));
      assert.deepEqual([...(await readImageFile(join(dir, name))).frames[0]!], [...volume.frames[0]!], name);
    }
    await assertReadRejects(() => readImageFile(join(dir, 'none.nrrd')), 'FILE_READ_ERROR', /does not exist/);
    await assertReadRejects(() => readImageFile(join(dir, 'a.png')), 'UNSUPPORTED_FORMAT', /'\.png'/);
  });
});

test('truncated and randomly corrupted files give ImageReadError, never another error', () => {
  const random = mulberry32(42);
  const volume = sampleVolume({
    dims: [6, 5, 4],
    frames: [new Float32Array(120).map((_, i) => i), new Float32Array(120).map((_, i) => -i)],
  });
  for (const format of ['nrrd', 'nii', 'nii.gz', 'mha'] as const) {
    const bytes = writeImageBytes(volume, format);
    const variants: Uint8Array[] = [];
    for (let cut = 0; cut < bytes.length - 1; cut += Math.max(1, Math.floor(bytes.length / 60)))
      variants.push(bytes.subarray(0, cut));
    for (let n = 0; n < 150; n++) {
      const corrupt = bytes.slice();
      const flips = 1 + Math.floor(random() * 8);
      for (let f = 0; f < flips; f++) corrupt[Math.floor(random() * corrupt.length)] = Math.floor(random() * 256);
      variants.push(corrupt);
    }
    variants.push(Uint8Array.from({ length: 600 }, () => Math.floor(random() * 256)));
    for (const variant of variants) {
      try {
        const v = readImageBytes(variant, format);
        // A flip that lands in the voxels (or a harmless header byte) still reads; it must read consistently.
        assert.equal(v.frames.length * v.frames[0]!.length, v.dims[0] * v.dims[1] * v.dims[2] * v.frames.length);
      } catch (err) {
        assert.ok(err instanceof ImageReadError, `${format}: ${String(err)}`);
        assert.ok(err.message.length > 10);
      }
    }
  }
});

test('no guessing from values: masks, two-valued and few-valued images are images in every format', () => {
  const shapes = [
    Float32Array.from({ length: 60 }, (_, i) => (i % 4 === 0 ? 3 : 0)),
    Float32Array.from({ length: 60 }, (_, i) => (i % 7 === 0 ? 220 : 20)),
    Float32Array.from({ length: 60 }, (_, i) => i % 2),
  ];
  for (const frame of shapes) {
    for (const format of ['nrrd', 'nii', 'nii.gz', 'mha'] as const) {
      const read = readImageBytes(
        writeImageBytes(sampleVolume({ componentType: 'uint8', frames: [frame] }), format),
        format,
      );
      assert.equal(read.segmentation, undefined, `${format}: values ${[...new Set(frame)].join(', ')}`);
      assert.deepEqual([...read.frames[0]!], [...frame]);
    }
  }
});
