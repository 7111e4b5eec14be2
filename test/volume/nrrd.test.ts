import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { readImageBytes, readImageFile } from '../../src/volume/read-image.js';
import { writeImageBytes } from '../../src/volume/write-image.js';
import {
  assertGeometry,
  assertReadError,
  assertReadRejects,
  close,
  encode,
  sampleVolume,
  withData,
  withTempDir,
} from './fixtures.js';

const LPS_IDENTITY = [1, 0, 0, 0, 1, 0, 0, 0, 1] as const;
const values24 = Array.from({ length: 24 }, (_, i) => i * 100 - 1000);

function nrrd(lines: string[], data: Uint8Array): Uint8Array {
  return withData(`NRRD0004\n${lines.join('\n')}\n\n`, data);
}

test('NRRD round trip keeps dims, geometry, values and component type', () => {
  for (const componentType of ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'float32', 'float64']) {
    const source = sampleVolume({ componentType });
    const unsigned = componentType.startsWith('u');
    const small = componentType.endsWith('8');
    const frames = source.frames.map((f) =>
      f.map((v) =>
        small
          ? unsigned
            ? Math.abs(v) % 200
            : v % 100
          : unsigned
            ? Math.abs(v)
            : v + 0.25 * Number(componentType.startsWith('float')),
      ),
    );
    const volume = { ...source, frames };
    const back = readImageBytes(writeImageBytes(volume, 'nrrd'), 'nrrd');
    assert.equal(back.componentType, componentType);
    assertGeometry(back, volume);
    assert.deepEqual(back.dims, volume.dims);
    assert.deepEqual([...back.frames[0]!], [...frames[0]!], componentType);
  }
});

test('NRRD 3D+time round trip keeps the time step and origin', () => {
  const volume = sampleVolume({
    frames: [0, 1, 2].map((t) => new Float32Array(60).fill(t * 10)),
    timeStepMs: 250,
    timeOriginMs: 1000,
  });
  const bytes = writeImageBytes(volume, 'nrrd');
  const text = new TextDecoder().decode(bytes.subarray(0, 600));
  assert.match(text, /space: left-posterior-superior-time/);
  assert.match(text, /org_mitk_timegeometry_timepoints:=1000 1250 1500 1750/);
  const back = readImageBytes(bytes, 'nrrd');
  assert.equal(back.frames.length, 3);
  assert.equal(back.timeStepMs, 250);
  assert.equal(back.timeOriginMs, 1000);
  assert.deepEqual(back.range, [0, 20]);
  assertGeometry(back, volume);
});

test('RGB NRRD round trip: unsigned char and unsigned short RGB pixels come back as they were written, over time steps', () => {
  const n = 5 * 4 * 3;
  for (const [type, name, make] of [
    ['uint8', 'unsigned char', (f: number[]) => Uint8Array.from(f)],
    ['uint16', 'unsigned short', (f: number[]) => Uint16Array.from(f)],
  ] as const) {
    const top = type === 'uint8' ? 255 : 65535;
    // Samples that differ in every channel, voxel and step, up to the type's top (no byte holds 65535).
    const rgb = [0, 1].map((t) => make(Array.from({ length: n * 3 }, (_, i) => (i * 7919 + t * 104729) % (top + 1))));
    const volume = {
      ...sampleVolume({ frames: [new Float32Array(n), new Float32Array(n)], timeStepMs: 100 }),
      componentType: type,
      rgb,
    };
    const bytes = writeImageBytes(volume, 'nrrd');
    const header = new TextDecoder().decode(bytes.subarray(0, 600));
    assert.match(header, new RegExp(`^type: ${name}$`, 'm'));
    assert.match(header, /^sizes: 3 5 4 3 2$/m);
    assert.match(header, /^kinds: RGB-color domain domain domain time$/m);
    const back = readImageBytes(bytes, 'nrrd');
    assert.equal(back.componentType, type);
    assert.deepEqual(back.dims, [5, 4, 3]);
    assertGeometry(back, volume);
    assert.equal(back.rgb!.length, 2);
    for (let t = 0; t < 2; t++) {
      assert.equal(back.rgb![t]!.constructor, rgb[t]!.constructor, `${type}: held in the type written`);
      assert.deepEqual(back.rgb![t], rgb[t], `${type}, step ${t}`);
      // The grey frames are the samples' luminance, as for a DICOM colour image.
      const c = rgb[t]!;
      close([back.frames[t]![7]!], [0.299 * c[21]! + 0.587 * c[22]! + 0.114 * c[23]!], `${type}: luminance`, 1e-2);
    }
    assert.ok(rgb[0]!.some((v) => v > 255) === (type === 'uint16'));
  }
});

test('RGB-color NRRD pixels other than three unsigned char or unsigned short samples are refused, saying what is read', () => {
  for (const [type, size] of [
    ['float', 3],
    ['unsigned char', 4],
  ] as const) {
    const bytes = nrrd(
      [`type: ${type}`, 'dimension: 3', `sizes: ${size} 2 2`, 'kinds: RGB-color domain domain', 'encoding: raw'],
      new Uint8Array(size * 4 * (type === 'float' ? 4 : 1)),
    );
    assertReadError(
      () => readImageBytes(bytes, 'nrrd'),
      'FILE_READ_ERROR',
      /RGB-color pixels of .* are not supported \(3 unsigned char or unsigned short samples are\)/,
    );
  }
});

test('big-endian raw NRRD with type aliases', () => {
  for (const [alias, type] of [
    ['short', 'int16'],
    ['signed short int', 'int16'],
    ['int32_t', 'int32'],
    ['float', 'float32'],
    ['double', 'float64'],
  ] as const) {
    const bytes = nrrd(
      ['type: ' + alias, 'dimension: 3', 'sizes: 4 3 2', 'encoding: raw', 'endian: big'],
      encode(values24, type, false),
    );
    const v = readImageBytes(bytes, 'nrrd');
    assert.deepEqual([...v.frames[0]!], values24, alias);
    assert.equal(v.componentType, type);
    assert.deepEqual(v.range, [-1000, 1300]);
  }
});

test('gzip and gz encodings, little-endian', () => {
  for (const encoding of ['gzip', 'gz']) {
    const bytes = nrrd(
      ['type: ushort', 'dimension: 3', 'sizes: 4 3 2', `encoding: ${encoding}`, 'endian: little'],
      gzipSync(
        encode(
          values24.map((v) => v + 1000),
          'uint16',
          true,
        ),
      ),
    );
    assert.deepEqual(
      [...readImageBytes(bytes, 'nrrd').frames[0]!],
      values24.map((v) => v + 1000),
    );
  }
});

test('text encoding, byte skip and line skip', () => {
  const text = nrrd(
    ['type: float', 'dimension: 2', 'sizes: 3 2', 'encoding: text'],
    new TextEncoder().encode('1 2.5 -3\n4,5 6\n'),
  );
  assert.deepEqual([...readImageBytes(text, 'nrrd').frames[0]!], [1, 2.5, -3, 4, 5, 6]);
  const skipped = withData('junk line\nmore junk\n', new Uint8Array([9, 9, 9, 1, 2, 3, 4, 5, 6]));
  const header = 'NRRD0004\ntype: uint8\ndimension: 2\nsizes: 3 2\nencoding: raw\nline skip: 2\nbyte skip: 3\n\n';
  assert.deepEqual([...readImageBytes(withData(header, skipped), 'nrrd').frames[0]!], [1, 2, 3, 4, 5, 6]);
  const fromEnd = withData(
    header.replace('line skip: 2\nbyte skip: 3', 'byte skip: -1'),
    new Uint8Array([7, 7, 1, 2, 3, 4, 5, 6]),
  );
  assert.deepEqual([...readImageBytes(fromEnd, 'nrrd').frames[0]!], [1, 2, 3, 4, 5, 6]);
});

test('2D NRRD gets a third axis of one voxel along the normal', () => {
  const bytes = nrrd(
    [
      'type: uint8',
      'dimension: 2',
      'space: left-posterior-superior',
      'sizes: 3 2',
      'space directions: (0,2,0) (0,0,3)',
      'space origin: (1,2,3)',
      'encoding: raw',
    ],
    new Uint8Array([1, 2, 3, 4, 5, 6]),
  );
  const v = readImageBytes(bytes, 'nrrd');
  assertGeometry(v, { dims: [3, 2, 1], spacing: [2, 3, 1], origin: [1, 2, 3], direction: [0, 0, 1, 1, 0, 0, 0, 1, 0] });
  // ITK writes a 2D image in a 2D space, and some writers put spaces inside the vectors.
  const itk = nrrd(
    [
      'type: uint8',
      'dimension: 2',
      'space dimension: 2',
      'sizes: 3 2',
      'space directions: (0.5, 0) (0, 0.25)',
      'space origin: (4, 5)',
      'encoding: raw',
    ],
    new Uint8Array(6),
  );
  assertGeometry(readImageBytes(itk, 'nrrd'), {
    dims: [3, 2, 1],
    spacing: [0.5, 0.25, 1],
    origin: [4, 5, 0],
    direction: [1, 0, 0, 0, 1, 0, 0, 0, 1],
  });
});

test('RAS NRRD is read as LPS: x and y of directions and origin change sign', () => {
  const bytes = nrrd(
    [
      'type: uint8',
      'dimension: 3',
      'space: right-anterior-superior',
      'sizes: 4 3 2',
      'space directions: (1.5,0,0) (0,2,0) (0,0,3)',
      'space origin: (10,20,30)',
      'encoding: raw',
    ],
    new Uint8Array(24),
  );
  assertGeometry(readImageBytes(bytes, 'nrrd'), {
    spacing: [1.5, 2, 3],
    origin: [-10, -20, 30],
    direction: [-1, 0, 0, 0, -1, 0, 0, 0, 1],
  });
  // scanner-xyz has no anatomical frame; like ITK it is taken as LPS.
  const scanner = nrrd(
    [
      'type: uint8',
      'dimension: 3',
      'space: scanner-xyz',
      'sizes: 4 3 2',
      'space directions: (1,0,0) (0,1,0) (0,0,1)',
      'space origin: (10,20,30)',
      'encoding: raw',
    ],
    new Uint8Array(24),
  );
  assertGeometry(readImageBytes(scanner, 'nrrd'), {
    spacing: [1, 1, 1],
    origin: [10, 20, 30],
    direction: [...LPS_IDENTITY],
  });
});

test('NRRD without space uses spacings and the identity', () => {
  const bytes = nrrd(
    ['type: uint8', 'dimension: 3', 'sizes: 4 3 2', 'spacings: 0.5 0.75 4', 'encoding: raw'],
    new Uint8Array(24),
  );
  assertGeometry(readImageBytes(bytes, 'nrrd'), {
    spacing: [0.5, 0.75, 4],
    origin: [0, 0, 0],
    direction: [...LPS_IDENTITY],
  });
});

test('4D NRRD: the time step comes from the time axis spacing, a 4D space direction or MITK time points', () => {
  const data = new Uint8Array(48).map((_, i) => i);
  const base = ['type: uint8', 'dimension: 4', 'sizes: 4 3 2 2', 'encoding: raw'];
  const spaced = readImageBytes(
    nrrd(
      [
        ...base,
        'space: LPS',
        'space directions: (1,0,0) (0,1,0) (0,0,2) none',
        'kinds: domain domain domain list',
        'spacings: nan nan nan 40',
      ],
      data,
    ),
    'nrrd',
  );
  assert.equal(spaced.frames.length, 2);
  assert.equal(spaced.timeStepMs, 40);
  assert.equal(spaced.frames[1]![0], 24);
  const spacetime = readImageBytes(
    nrrd(
      [
        ...base,
        'space: RAST',
        'space directions: (1,0,0,0) (0,1,0,0) (0,0,2,0) (0,0,0,75)',
        'space origin: (5,6,7,100)',
      ],
      data,
    ),
    'nrrd',
  );
  assert.equal(spacetime.timeStepMs, 75);
  assert.equal(spacetime.timeOriginMs, 100);
  close(spacetime.origin, [-5, -6, 7], 'origin');
  // What MITK writes: a plain 4D space and its own record of the time bounds.
  const mitk = readImageBytes(
    nrrd(
      [
        ...base,
        'space dimension: 4',
        'space directions: (1,0,0,0) (0,1,0,0) (0,0,2,0) (0,0,0,1)',
        'org_mitk_timegeometry_type:=ArbitraryTimeGeometry',
        'org_mitk_timegeometry_timepoints:=0 500 1000',
      ],
      data,
    ),
    'nrrd',
  );
  assert.equal(mitk.timeStepMs, 500);
  assert.equal(mitk.timeOriginMs, 0);
  const defaulted = readImageBytes(nrrd([...base, 'kinds: domain domain domain time'], data), 'nrrd');
  assert.equal(defaulted.timeStepMs, 1);
});

test('detached header: the data file is resolved relative to the header', async () => {
  await withTempDir(async (dir) => {
    await writeFile(join(dir, 'ct.raw'), encode(values24, 'int16', false));
    await writeFile(
      join(dir, 'CT.NHDR'),
      'NRRD0004\ntype: short\ndimension: 3\nsizes: 4 3 2\nendian: big\nencoding: raw\ndata file: ct.raw\n',
    );
    const v = await readImageFile(join(dir, 'CT.NHDR'));
    assert.deepEqual([...v.frames[0]!], values24);
    await writeFile(
      join(dir, 'gone.nhdr'),
      'NRRD0004\ntype: short\ndimension: 3\nsizes: 4 3 2\nencoding: raw\ndatafile: missing.raw\n',
    );
    await assertReadRejects(
      () => readImageFile(join(dir, 'gone.nhdr')),
      'FILE_READ_ERROR',
      /data file 'missing\.raw' named by the header.*does not exist/,
    );
  });
});

test('a detached header uploaded alone is a FILE_READ_ERROR that says what to do', () => {
  const header = new TextEncoder().encode(
    'NRRD0004\ntype: short\ndimension: 3\nsizes: 4 3 2\nencoding: raw\ndata file: ct.raw\n',
  );
  assertReadError(
    () => readImageBytes(header, 'nhdr'),
    'FILE_READ_ERROR',
    /data file 'ct\.raw'.*missing.*attached-header file.*file-reference transfer/,
  );
});

test('bad NRRD headers give FILE_READ_ERROR naming the problem', () => {
  const ok = ['type: short', 'dimension: 3', 'sizes: 96 96 32', 'encoding: raw', 'endian: little'];
  const cases: [string[], Uint8Array, RegExp][] = [
    [ok.filter((l) => !l.startsWith('sizes')), new Uint8Array(0), /^NRRD header: missing 'sizes' field$/],
    [ok, new Uint8Array(1000), /data is 1000 bytes, header needs 589824 \(96x96x32 int16\)/],
    [['type: block', ...ok.slice(1)], new Uint8Array(0), /type 'block' is not supported/],
    [[...ok.slice(0, 3), 'encoding: bzip2', 'endian: little'], new Uint8Array(0), /encoding 'bzip2' is not supported/],
    [
      ['type: short', 'dimension: 3', 'sizes: 96 96', 'encoding: raw'],
      new Uint8Array(0),
      /'sizes' has 2 entries, 'dimension' says 3/,
    ],
    [
      ['type: short', 'dimension: 3', 'sizes: 3 4 0', 'encoding: raw'],
      new Uint8Array(0),
      /'sizes' entry 2.*not a positive integer/,
    ],
    [
      ['type: float', 'dimension: 4', 'sizes: 3 4 4 5', 'kinds: vector domain domain domain', 'encoding: raw'],
      new Uint8Array(0),
      /multi-component pixels are not supported/,
    ],
    [
      [
        'type: float',
        'dimension: 3',
        'space: LPS',
        'sizes: 3 4 4',
        'space directions: (1,0,0) (0,1,0)',
        'encoding: raw',
      ],
      new Uint8Array(0),
      /'space directions' has 2 entries/,
    ],
    [
      [
        'type: float',
        'dimension: 3',
        'space: LPS',
        'sizes: 3 4 4',
        'space directions: (1,0,0) (1,1,0) (0,0,1)',
        'encoding: raw',
      ],
      new Uint8Array(0),
      /not perpendicular/,
    ],
    [
      [
        'type: float',
        'dimension: 3',
        'space: LPS',
        'sizes: 3 4 4',
        'space directions: (1,0,0) (0,0,0) (0,0,1)',
        'encoding: raw',
      ],
      new Uint8Array(0),
      /axis 1 has no direction or zero spacing/,
    ],
    [
      ['type: float', 'dimension: 3', 'space: martian', 'sizes: 3 4 4', 'encoding: raw'],
      new Uint8Array(0),
      /space 'martian' is not supported/,
    ],
    [[...ok.slice(0, 3), 'encoding: gzip'], new Uint8Array([0x1f, 0x8b, 8, 0, 0]), /gzip data is corrupt or truncated/],
  ];
  for (const [lines, data, pattern] of cases)
    assertReadError(() => readImageBytes(nrrd(lines, data), 'nrrd'), 'FILE_READ_ERROR', pattern);
  assertReadError(
    () => readImageBytes(new TextEncoder().encode('P6\n3 2\n255\n'), 'nrrd'),
    'FILE_READ_ERROR',
    /not a NRRD file/,
  );
});
