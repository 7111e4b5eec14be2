import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { readImageBytes } from '../../src/volume/read-image.js';
import { writeImageBytes } from '../../src/volume/write-image.js';
import { LABEL_DEFAULTS } from '../../src/volume/segmentation.js';
import { segmentationVolume, type Mat3 } from '../../src/volume/volume.js';
import { assertGeometry, assertReadError, close, encode, sampleVolume } from './fixtures.js';
import { niftiBytes } from './nifti-fixture.js';

const values24 = Array.from({ length: 24 }, (_, i) => i * 50 - 300);
const INT16 = { datatype: 4, bitpix: 16 };

test('NIfTI round trip (.nii and .nii.gz) keeps geometry, values and component type', () => {
  // A mirrored grid (determinant -1) goes through the quaternion's qfac.
  for (const componentType of ['uint8', 'int16', 'uint16', 'int32', 'float32', 'float64']) {
    const frames = sampleVolume().frames.map((f) =>
      f.map((v) => (componentType === 'uint8' ? Math.abs(v) % 250 : componentType === 'uint16' ? Math.abs(v) : v)),
    );
    const volume = sampleVolume({ componentType, frames });
    for (const format of ['nii', 'nii.gz'] as const) {
      const back = readImageBytes(writeImageBytes(volume, format), format);
      assert.equal(back.componentType, componentType);
      assertGeometry(back, volume);
      assert.deepEqual([...back.frames[0]!], [...frames[0]!]);
    }
  }
});

test('NIfTI writes RAS: the stored sform is the LPS geometry with x and y negated', () => {
  const volume = sampleVolume({ direction: [1, 0, 0, 0, 1, 0, 0, 0, 1], spacing: [2, 3, 4], origin: [10, 20, 30] });
  const bytes = writeImageBytes(volume, 'nii');
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const srow = Array.from({ length: 12 }, (_, i) => view.getFloat32(280 + 4 * i, true));
  assert.deepEqual(srow, [-2, 0, 0, -10, 0, -3, 0, -20, 0, 0, 4, 30]);
});

test('the quaternion of the written qform gives the same grid as the sform, also for an oblique grid', () => {
  const c = Math.cos(0.3);
  const s = Math.sin(0.3);
  const oblique: Mat3 = [c, -s, 0, s, c, 0, 0, 0, 1];
  for (const direction of [oblique, sampleVolume().direction, [-1, 0, 0, 0, 1, 0, 0, 0, 1] as Mat3]) {
    const volume = sampleVolume({ direction });
    const bytes = writeImageBytes(volume, 'nii');
    // sform_code 0: the reader must fall back to the qform.
    new DataView(bytes.buffer, bytes.byteOffset).setInt16(254, 0, true);
    assertGeometry(readImageBytes(bytes, 'nii'), volume);
  }
});

test('4D NIfTI: time step from pixdim[4] in the unit of xyzt_units, converted to ms', () => {
  const data = encode(values24, 'int16', true);
  for (const [units, pixdim4, expected] of [
    [2 | 8, 0.5, 500],
    [2 | 16, 40, 40],
    [2 | 24, 2000, 2],
  ] as const) {
    const v = readImageBytes(
      niftiBytes(
        { ...INT16, dims: [3, 2, 2, 2], pixdim: [1, 1, 1, 1, pixdim4, 0, 0, 0], xyztUnits: units, toffset: 1 },
        data,
      ),
      'nii',
    );
    assert.equal(v.frames.length, 2);
    assert.equal(v.timeStepMs, expected);
    assert.equal(v.timeOriginMs, expected / pixdim4);
    assert.deepEqual([...v.frames[1]!], values24.slice(12));
  }
  const volume = sampleVolume({ frames: [0, 1, 2, 3].map((t) => new Float32Array(60).fill(t)), timeStepMs: 500 });
  const back = readImageBytes(writeImageBytes(volume, 'nii.gz'), 'nii.gz');
  assert.equal(back.frames.length, 4);
  assert.equal(back.timeStepMs, 500);
});

test('big-endian NIfTI-1 and NIfTI-2 in both byte orders', () => {
  const srow = [-2, 0, 0, 10, 0, -3, 0, 20, 0, 0, 4, 30];
  for (const version of [1, 2] as const) {
    for (const little of [false, true]) {
      const bytes = niftiBytes(
        { version, little, ...INT16, dims: [4, 3, 2], sformCode: 1, srow },
        encode(values24, 'int16', little),
      );
      const v = readImageBytes(bytes, 'nii');
      assert.deepEqual([...v.frames[0]!], values24, `v${version} little=${little}`);
      assertGeometry(v, {
        dims: [4, 3, 2],
        spacing: [2, 3, 4],
        origin: [-10, -20, 30],
        direction: [1, 0, 0, 0, 1, 0, 0, 0, 1],
      });
    }
  }
});

test('NIfTI geometry: sform when its code is set, else qform (with qfac), else pixdim', () => {
  const data = new Uint8Array(24);
  const base = { datatype: 2, bitpix: 8, dims: [4, 3, 2], pixdim: [1, 2, 3, 4, 0, 0, 0, 0] };
  const srow = [0, 0, 5, 1, 6, 0, 0, 2, 0, 7, 0, 3];
  // qform: 180 degrees about z (b=0, c=0, d=1): RAS x and y flip, so LPS is the identity.
  const qform = {
    qformCode: 1,
    quatern: [0, 0, 1] as [number, number, number],
    qoffset: [-7, -8, 9] as [number, number, number],
  };
  const sformWins = readImageBytes(niftiBytes({ ...base, ...qform, sformCode: 2, srow }, data), 'nii');
  assertGeometry(sformWins, { spacing: [6, 7, 5], origin: [-1, -2, 3], direction: [0, 0, -1, -1, 0, 0, 0, 1, 0] });
  const qformOnly = readImageBytes(niftiBytes({ ...base, ...qform, srow }, data), 'nii');
  assertGeometry(qformOnly, { spacing: [2, 3, 4], origin: [7, 8, 9], direction: [1, 0, 0, 0, 1, 0, 0, 0, 1] });
  const flipped = readImageBytes(niftiBytes({ ...base, ...qform, pixdim: [-1, 2, 3, 4, 0, 0, 0, 0] }, data), 'nii');
  assertGeometry(flipped, { spacing: [2, 3, 4], origin: [7, 8, 9], direction: [1, 0, 0, 0, 1, 0, 0, 0, -1] });
  const plain = readImageBytes(niftiBytes(base, data), 'nii');
  assertGeometry(plain, { spacing: [2, 3, 4], origin: [0, 0, 0], direction: [-1, 0, 0, 0, -1, 0, 0, 0, 1] });
  const metres = readImageBytes(
    niftiBytes({ ...base, pixdim: [1, 0.002, 0.003, 0.004, 0, 0, 0, 0], xyztUnits: 1 }, data),
    'nii',
  );
  close(metres.spacing, [2, 3, 4], 'spacing in metres');
});

test('scl_slope and scl_inter are applied; slope 0 means unscaled', () => {
  const data = encode([0, 1, 2, 3, 4, 5], 'int16', true);
  const scaled = readImageBytes(niftiBytes({ ...INT16, dims: [3, 2], sclSlope: 2, sclInter: -1 }, data), 'nii');
  assert.deepEqual([...scaled.frames[0]!], [-1, 1, 3, 5, 7, 9]);
  assert.deepEqual(scaled.range, [-1, 9]);
  const raw = readImageBytes(niftiBytes({ ...INT16, dims: [3, 2], sclSlope: 0, sclInter: 5 }, data), 'nii');
  assert.deepEqual([...raw.frames[0]!], [0, 1, 2, 3, 4, 5]);
});

test('a NIfTI is an image whatever its intent code, NIFTI_INTENT_LABEL included', () => {
  const mask = [0, 0, 1, 2, 0, 1, 0, 0, 2, 1, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 1, 0, 0, 2];
  for (const intentCode of [0, 1002, 1007]) {
    const read = readImageBytes(
      niftiBytes({ ...INT16, dims: [4, 3, 2], intentCode }, encode(mask, 'int16', true)),
      'nii',
    );
    assert.equal(read.segmentation, undefined, `intent ${intentCode}`);
    assert.deepEqual([...read.frames[0]!], mask);
  }
});

test('a segmentation of one group is written to NIfTI as its plain label image; of several groups, not at all', () => {
  const frames = [Float32Array.from({ length: 60 }, (_, i) => i % 3)];
  const labels = [1, 2].map((value) => ({ ...LABEL_DEFAULTS, value, extra: {} }));
  const grid = sampleVolume();
  const one = segmentationVolume(grid, { groups: [{ name: '', labels, extra: {}, frames }], unlabeledLock: false });
  const written = writeImageBytes(one, 'nii');
  assert.equal(new DataView(written.buffer).getInt16(68, true), 0, 'no intent code');
  const back = readImageBytes(written, 'nii');
  assert.equal(back.segmentation, undefined);
  assert.equal(back.componentType, 'uint16');
  assert.deepEqual([...back.frames[0]!], [...frames[0]!]);
  const two = segmentationVolume(grid, {
    groups: [one.segmentation!.groups[0]!, { name: 'b', labels: [], extra: {}, frames }],
    unlabeledLock: false,
  });
  assert.throws(() => writeImageBytes(two, 'nii.gz'), /2 label groups can only be written as NRRD/);
});

test('gzip NIfTI under nii.gz, gz or nii; gz that is not a gzip NIfTI is refused', () => {
  const plain = niftiBytes({ ...INT16, dims: [4, 3, 2] }, encode(values24, 'int16', true));
  for (const format of ['nii.gz', 'gz', 'nii', 'NII.GZ'])
    assert.deepEqual([...readImageBytes(gzipSync(plain), format).frames[0]!], values24);
  assertReadError(() => readImageBytes(plain, 'gz'), 'FILE_READ_ERROR', /not gzip-compressed/);
  assertReadError(
    () => readImageBytes(gzipSync(new TextEncoder().encode('NRRD0004\n')), 'gz'),
    'FILE_READ_ERROR',
    /not a gzip-compressed NIfTI/,
  );
});

test('bad NIfTI files give FILE_READ_ERROR naming the problem', () => {
  const ok = niftiBytes({ ...INT16, dims: [4, 3, 2] }, encode(values24, 'int16', true));
  assertReadError(
    () => readImageBytes(ok.subarray(0, 300), 'nii'),
    'FILE_READ_ERROR',
    /shorter than the 348-byte NIfTI-1 header/,
  );
  assertReadError(
    () => readImageBytes(ok.subarray(0, 360), 'nii'),
    'FILE_READ_ERROR',
    /NIfTI: data is 8 bytes, header needs 48 \(4x3x2 int16\)/,
  );
  assertReadError(
    () => readImageBytes(gzipSync(ok).subarray(0, 40), 'nii.gz'),
    'FILE_READ_ERROR',
    /gzip data is corrupt or truncated/,
  );
  assertReadError(
    () => readImageBytes(niftiBytes({ datatype: 128, bitpix: 24, dims: [2, 2] }, new Uint8Array(12)), 'nii'),
    'FILE_READ_ERROR',
    /datatype 128 is not supported/,
  );
  assertReadError(
    () => readImageBytes(niftiBytes({ ...INT16, dims: [2, 2, 1, 1, 3] }, new Uint8Array(24)), 'nii'),
    'FILE_READ_ERROR',
    /dim\[5\] is 3/,
  );
  assertReadError(
    () => readImageBytes(niftiBytes({ ...INT16, dims: [2, 2], magic: 'ni1' }, new Uint8Array(8)), 'nii'),
    'FILE_READ_ERROR',
    /\.hdr\/\.img pair/,
  );
  assertReadError(
    () => readImageBytes(niftiBytes({ ...INT16, dims: [2, 2], magic: 'xx1' }, new Uint8Array(8)), 'nii'),
    'FILE_READ_ERROR',
    /magic is 'xx1'/,
  );
  assertReadError(() => readImageBytes(new Uint8Array(400), 'nii'), 'FILE_READ_ERROR', /not a NIfTI file/);
  // A gzipped .nii.gz written by the writer and cut short inside the data.
  const written = gunzipSync(writeImageBytes(sampleVolume(), 'nii.gz'));
  assertReadError(
    () => readImageBytes(written.subarray(0, written.length - 10), 'nii'),
    'FILE_READ_ERROR',
    /header needs 120/,
  );
});
