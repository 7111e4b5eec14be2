import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { poolThreads } from '../../../src/volume/dicom/decode-pool.js';
import { DicomReadError, readDicom, type DicomRead } from '../../../src/volume/dicom/index.js';
import { withTempDir } from '../../helpers/workbench.js';
import { needs, referenceParts } from './reference-tools.js';
import { axial, writeSeries, type SynthSlice } from './synthetic.js';

async function withSeries(t: TestContext, slices: SynthSlice[], fn: (dir: string) => Promise<void>): Promise<void> {
  const parts = referenceParts();
  if (!needs(t, parts.missing)) return;
  await withTempDir(async (dir) => {
    writeSeries(parts.python!, dir, slices);
    await fn(dir);
  });
}

const near = (actual: readonly number[], expected: readonly number[], what: string): void => {
  assert.equal(actual.length, expected.length, what);
  actual.forEach((v, i) =>
    assert.ok(Math.abs(v - expected[i]!) < 1e-6, `${what}: ${actual.join(', ')} vs ${expected.join(', ')}`),
  );
};

/** The value at voxel (0, 0) of each slice: which file went where. */
const firstVoxels = (read: DicomRead): number[] => {
  const v = read.volume!;
  const slice = v.dims[0] * v.dims[1];
  return Array.from({ length: v.dims[2] }, (_, k) => v.frames[0]![k * slice]!);
};

test('slices are ordered by position, not by file name; origin is the first slice, z spacing from positions', async (t) => {
  // File names run against the positions, and instance numbers are shuffled.
  const slices = axial(5, { gap: 2.5 }).map((s, i) => ({ ...s, name: `f${9 - i}`, instance: [3, 1, 5, 2, 4][i]! }));
  await withSeries(t, slices, async (dir) => {
    const [read, ...more] = await readDicom(join(dir, 'f7'));
    assert.equal(more.length, 0);
    assert.deepEqual(firstVoxels(read!), [100, 200, 300, 400, 500]);
    near(read!.volume!.origin, [-5, -7, 10], 'origin');
    // PixelSpacing is [row spacing, column spacing] = [y, x].
    near(read!.volume!.spacing, [0.75, 0.5, 2.5], 'spacing');
    assert.deepEqual(read!.volume!.dims, [6, 8, 5]);
    assert.equal(read!.files.length, 5);
    assert.equal(read!.files[0], join(dir, 'f9'));
    assert.equal(read!.slices, 5);
  });
});

test('descending positions are reversed so slices ascend along row × column', async (t) => {
  const slices = axial(4, { gap: -3, z0: 30 });
  await withSeries(t, slices, async (dir) => {
    const [read] = await readDicom(join(dir, 's0'));
    assert.deepEqual(firstVoxels(read!), [400, 300, 200, 100]);
    near(read!.volume!.origin, [-5, -7, 21], 'origin is the lowest slice');
    near(read!.volume!.spacing.slice(2), [3], 'z spacing');
  });
});

test('sagittal and oblique orientations: direction columns are row, column and their cross product', async (t) => {
  const sagittal: SynthSlice[] = [0, 1, 2].map((i) => ({
    name: `sag${i}`,
    orientation: [0, 1, 0, 0, 0, -1],
    position: [i * 4 - 4, 0, 0],
    instance: i + 1,
    value: i * 10,
  }));
  const c = Math.SQRT1_2;
  const oblique: SynthSlice[] = [0, 1, 2].map((i) => ({
    name: `obl${i}`,
    series: '1.2.3.9',
    orientation: [c, c, 0, -c, c, 0],
    position: [0, 0, 1.5 * i],
    instance: i + 1,
    value: i * 10,
  }));
  await withSeries(t, [...sagittal, ...oblique], async (dir) => {
    const [sag] = await readDicom(join(dir, 'sag1'));
    // row (0,1,0), column (0,0,-1), normal = row × column = (-1,0,0): slices ascend along -x.
    near(sag!.volume!.direction, [0, 0, -1, 1, 0, 0, 0, -1, 0], 'sagittal direction');
    near(sag!.volume!.origin, [4, 0, 0], 'sagittal origin (the slice furthest along -x)');
    near(sag!.volume!.spacing, [0.75, 0.5, 4], 'sagittal spacing');
    const [obl] = await readDicom(join(dir, 'obl0'));
    near(obl!.volume!.direction, [c, -c, 0, c, c, 0, 0, 0, 1], 'oblique direction');
    near(obl!.volume!.spacing.slice(2), [1.5], 'oblique z spacing');
  });
});

test('two series in one folder: a file reads its own series; the folder reads both', async (t) => {
  const a = axial(3, { prefix: 'a', series: '1.2.3.1', seriesDescription: 'A' });
  const b = axial(4, { prefix: 'b', series: '1.2.3.2', seriesDescription: 'B', gap: 1 });
  await withSeries(t, [...a, ...b], async (dir) => {
    const [one, ...none] = await readDicom(join(dir, 'b2'));
    assert.equal(none.length, 0);
    assert.equal(one!.slices, 4);
    assert.equal(one!.properties.name, 'B');
    const all = await readDicom(dir);
    assert.deepEqual(all.map((r) => r.slices).sort(), [3, 4]);
  });
});

test('an uneven gap splits the series; the block holding the given file is read, with the split reason', async (t) => {
  const slices = axial(6, { gap: 2 }).map((s, i) =>
    i >= 3 ? { ...s, position: [-5, -7, 10 + i * 2 + 5] as [number, number, number] } : s,
  );
  await withSeries(t, slices, async (dir) => {
    const [low] = await readDicom(join(dir, 's1'));
    assert.deepEqual(firstVoxels(low!), [100, 200, 300]);
    const [high] = await readDicom(join(dir, 's4'));
    assert.deepEqual(firstVoxels(high!), [400, 500, 600]);
    const all = await readDicom(dir);
    assert.equal(all.length, 2);
    assert.ok(all.some((r) => typeof r.properties['MITK.IO.reader.VolumeSplitReason'] === 'string'));
  });
});

test('a localizer with three orientations gives three blocks; each file reads its own plane', async (t) => {
  const orientations: Array<SynthSlice['orientation']> = [
    [1, 0, 0, 0, 1, 0],
    [1, 0, 0, 0, 0, -1],
    [0, 1, 0, 0, 0, -1],
  ];
  // Each plane through its own point, as a scanner's three-plane localizer is.
  const slices = orientations.map((o, i) => ({
    name: `loc${i}`,
    orientation: o,
    position: [i, -i, 2 * i] as [number, number, number],
    instance: i + 1,
    value: i * 1000,
  }));
  await withSeries(t, slices, async (dir) => {
    const all = await readDicom(dir);
    assert.equal(all.length, 3);
    const [coronal] = await readDicom(join(dir, 'loc1'));
    assert.equal(coronal!.slices, 1);
    assert.deepEqual(firstVoxels(coronal!), [1000]);
  });
});

test('repeated positions become time steps of one image', async (t) => {
  const t0 = axial(3, { prefix: 't0_' });
  const t1 = axial(3, { prefix: 't1_', value: 7 }).map((s, i) => ({ ...s, instance: 4 + i, value: 1000 * (i + 1) }));
  await withSeries(t, [...t0, ...t1], async (dir) => {
    const [read, ...more] = await readDicom(join(dir, 't1_1'));
    assert.equal(more.length, 0);
    const v = read!.volume!;
    assert.equal(v.frames.length, 2, 'two time steps');
    assert.equal(v.dims[2], 3);
    assert.deepEqual([v.frames[0]![0], v.frames[1]![0]], [100, 1000]);
    assert.equal(read!.properties['MITK.IO.reader.DICOM.3D+t'], true);
  });
});

test('level window from the first WindowCenter/WindowWidth values, name from study and series descriptions', async (t) => {
  const slices = axial(2, {
    windowCenter: '40\\300',
    windowWidth: '400\\1500',
    studyDescription: 'Thorax',
    seriesDescription: 'Arterial',
  });
  await withSeries(t, slices, async (dir) => {
    const [read] = await readDicom(join(dir, 's0'));
    assert.equal(read!.properties.name, 'Thorax / Arterial');
    assert.deepEqual(read!.properties.levelwindow, {
      type: 'LevelWindowProperty',
      value: {
        CurrentRange: { Max: 4096, Min: -2048 },
        CurrentSettings: { Level: 40, Window: 400 },
        DefaultSettings: { Level: 40, Window: 400 },
        Fixed: false,
        IsFloatingImage: false,
      },
    });
    const description = read!.properties['DICOM.0008.103E'] as { type: string; value: { values: unknown[] } };
    assert.deepEqual(description, {
      type: 'TemporoSpatialStringProperty',
      value: { values: [{ z: 0, zmax: 1, t: 0, value: 'Arterial' }] },
    });
  });
});

test('values: integer rescale picks the smallest type holding the range; a fractional one gives double; MONOCHROME1 is inverted first', async (t) => {
  const slices: SynthSlice[] = [
    { name: 'ct', position: [0, 0, 0], intercept: -1024, series: '1.1', value: 5 },
    { name: 'frac', position: [0, 0, 0], slope: 0.5, series: '1.2', value: 5 },
    { name: 'mono1', position: [0, 0, 0], photometric: 'MONOCHROME1', series: '1.3', value: 5 },
  ];
  await withSeries(t, slices, async (dir) => {
    const [ct] = await readDicom(join(dir, 'ct'));
    assert.equal(ct!.volume!.componentType, 'int32', 'int16 with BitsStored 16 and intercept -1024 needs int32');
    assert.equal(ct!.volume!.frames[0]![0], 5 - 1024);
    const [frac] = await readDicom(join(dir, 'frac'));
    assert.equal(frac!.volume!.componentType, 'float64');
    assert.equal(frac!.volume!.frames[0]![1], 3);
    const [mono] = await readDicom(join(dir, 'mono1'));
    // Signed 16-bit MONOCHROME1: v becomes -v - 1, before rescaling (ITK's GDCMImageIO).
    assert.equal(mono!.volume!.frames[0]![0], -6);
    assert.equal(mono!.properties['dicom.pixel.PhotometricInterpretation'], 'MONOCHROME1');
  });
});

test('bad input: a truncated file, a text file and an unsupported transfer syntax fail with the file and the reason', async (t) => {
  const slices: SynthSlice[] = [
    { name: 'short.dcm', position: [0, 0, 0], truncate: 20, series: '9.1' },
    { name: 'htj2k.dcm', position: [0, 0, 0], transferSyntax: '1.2.840.10008.1.2.4.201', series: '9.2' },
  ];
  await withSeries(t, slices, async (dir) => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'notes.dcm'), 'just some text, no DICOM here\n'.repeat(10));
    await assert.rejects(readDicom(join(dir, 'short.dcm')), (err: Error & { code?: string; file?: string }) => {
      assert.equal(err.code, 'TRUNCATED');
      assert.equal(err.file, join(dir, 'short.dcm'));
      return true;
    });
    await assert.rejects(readDicom(join(dir, 'notes.dcm')), { code: 'NOT_DICOM' });
    await assert.rejects(readDicom(join(dir, 'htj2k.dcm')), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'UNSUPPORTED_TRANSFER_SYNTAX');
      assert.match(err.message, /HTJ2K/);
      return true;
    });
  });
});

test('a block of 4 M voxels or more is decoded on the thread pool, every slice in its place', async (t) => {
  const slices = axial(64, { rows: 256, columns: 256, gap: 1 }).map((s, i) => ({ ...s, name: `x${(i * 37) % 64}` }));
  await withSeries(t, slices, async (dir) => {
    const [read] = await readDicom(join(dir, 'x5'));
    const v = read!.volume!;
    assert.deepEqual(v.dims, [256, 256, 64]);
    assert.ok(v.frames[0]!.buffer instanceof SharedArrayBuffer, 'decoded into shared memory by the pool');
    assert.deepEqual(
      firstVoxels(read!),
      Array.from({ length: 64 }, (_, k) => 100 * (k + 1)),
    );
    // The last voxel of the last slice: value + x + 2·y at x = y = 255.
    assert.equal(v.frames[0]!.at(-1), 6400 + 255 + 510);
    assert.deepEqual(v.range, [100, 6400 + 255 + 510]);
  });
});

test('the thread pool: a truncated slice fails the load naming it; the next load runs on a thread per core, its range rescaled', async (t) => {
  const broken = axial(64, { rows: 256, columns: 256, gap: 1 }).map((s, i) => ({
    ...s,
    name: `b${i}`,
    ...(i === 41 ? { truncate: 20 } : {}),
  }));
  await withSeries(t, broken, async (dir) => {
    await assert.rejects(readDicom(join(dir, 'b0')), (err: unknown) => {
      assert.ok(err instanceof DicomReadError);
      assert.equal(err.code, 'TRUNCATED');
      assert.equal(err.file, join(dir, 'b41'));
      return true;
    });
  });
  // A negative slope: the largest stored value gives the smallest rescaled one.
  const rescaled = axial(64, { rows: 256, columns: 256, gap: 1 }).map((s) => ({ ...s, slope: -2, intercept: 10 }));
  await withSeries(t, rescaled, async (dir) => {
    const [read] = await readDicom(join(dir, 's0'));
    const v = read!.volume!;
    assert.ok(v.frames[0]!.buffer instanceof SharedArrayBuffer, 'decoded into shared memory by the pool');
    assert.equal(poolThreads(), availableParallelism());
    assert.deepEqual(v.range, [-2 * (6400 + 255 + 510) + 10, -2 * 100 + 10]);
    let min = Infinity;
    let max = -Infinity;
    for (const x of v.frames[0]!) {
      if (x < min) min = x;
      if (x > max) max = x;
    }
    assert.deepEqual(v.range, [min, max], 'the range is that of the voxels');
  });
});

test('the thread pool decodes a JPEG 2000 series (made by gdcmconv --j2k) to the same voxels as its raw original', async (t) => {
  const parts = referenceParts(['gdcmconv']);
  if (!needs(t, parts.missing)) return;
  await withTempDir(async (dir) => {
    const raw = join(dir, 'raw');
    const j2k = join(dir, 'j2k');
    mkdirSync(raw);
    mkdirSync(j2k);
    writeSeries(parts.python!, raw, axial(64, { rows: 256, columns: 256, gap: 1, intercept: -1024 }));
    for (const name of readdirSync(raw)) execFileSync('gdcmconv', ['--j2k', join(raw, name), join(j2k, name)]);
    const [original] = await readDicom(join(raw, 's0'));
    const [compressed] = await readDicom(join(j2k, 's0'));
    const a = original!.volume!;
    const b = compressed!.volume!;
    assert.ok(b.frames[0]!.buffer instanceof SharedArrayBuffer, 'decoded into shared memory by the pool');
    assert.deepEqual(b.dims, a.dims);
    assert.equal(b.componentType, a.componentType);
    assert.deepEqual(b.range, a.range);
    assert.deepEqual(firstVoxels(compressed!), firstVoxels(original!));
    let differing = 0;
    for (let i = 0; i < a.frames[0]!.length; i++) if (a.frames[0]![i] !== b.frames[0]![i]) differing++;
    assert.equal(differing, 0);
  });
});
