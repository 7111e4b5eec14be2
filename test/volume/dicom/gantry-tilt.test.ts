import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { DicomReadError, readDicom } from '../../../src/volume/dicom/index.js';
import type { Volume } from '../../../src/volume/volume.js';
import { withTempDir, withWorkbench } from '../../helpers/workbench.js';
import { readImageBytes } from '../../../src/volume/read-image.js';
import { needs, referenceParts } from './reference-tools.js';
import { writeSeries, type SynthSlice } from './synthetic.js';

/**
 * A CT on a tilted gantry: each slice origin moves `up` mm along the column direction and
 * `gap` mm along the normal. MITK keeps such a series as one block and shears it straight
 * (`FixUpTiltedGeometry`).
 */
function tilted(count: number, up: number, gap: number, value = 100): SynthSlice[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `t${i}`,
    position: [-5, -7 + i * up, 10 + i * gap] as [number, number, number],
    instance: i + 1,
    value: value * (i + 1),
  }));
}

async function withSeries(t: TestContext, slices: SynthSlice[], fn: (dir: string, python: string) => Promise<void>) {
  const parts = referenceParts();
  if (!needs(t, parts.missing)) return;
  await withTempDir(async (dir) => {
    writeSeries(parts.python!, dir, slices);
    await fn(dir, parts.python!);
  });
}

/**
 * The voxels a sheared grid should hold, computed by numpy from the files alone: each output
 * voxel's world point is projected into the plane of its slice (that slice's own origin and
 * axes) and the file's pixels are interpolated linearly along the column there; points more
 * than half a pixel off the image get the filler, and values are cut toward zero as C++ casts.
 */
function expectedVoxels(python: string, dir: string, names: string[], v: Volume, filler: number): number[] {
  const script = String.raw`
import json, sys, math
import numpy as np, pydicom
spec = json.load(sys.stdin)
dims, spacing_ = spec['dims'], spec['spacing']
origin, d = np.array(spec['origin']), np.array(spec['direction']).reshape(3, 3)
out = np.zeros((dims[2], dims[1], dims[0]))
for k, name in enumerate(spec['names']):
    ds = pydicom.dcmread(spec['dir'] + '/' + name)
    px = ds.pixel_array.astype(float) * float(ds.RescaleSlope) + float(ds.RescaleIntercept)
    o = np.array([float(x) for x in ds.ImagePositionPatient])
    iop = [float(x) for x in ds.ImageOrientationPatient]
    row, col = np.array(iop[:3]), np.array(iop[3:])
    sy, sx = float(ds.PixelSpacing[0]), float(ds.PixelSpacing[1])
    for j in range(dims[1]):
        for i in range(dims[0]):
            p = origin + d @ np.array([i * spacing_[0], j * spacing_[1], k * spacing_[2]])
            jj = (p - o) @ col / sy
            ii = int(round((p - o) @ row / sx))
            if not (-0.5 <= jj < px.shape[0] - 0.5):
                out[k, j, i] = spec['filler']
                continue
            a = min(max(math.floor(jj), 0), px.shape[0] - 1)
            b = min(a + 1, px.shape[0] - 1)
            t = max(jj - a, 0.0)
            out[k, j, i] = math.trunc(px[a, ii] + t * (px[b, ii] - px[a, ii]))
print(json.dumps(out.ravel().tolist()))
`;
  const input = JSON.stringify({
    dir,
    names,
    dims: v.dims,
    spacing: v.spacing,
    origin: v.origin,
    direction: v.direction,
    filler,
  });
  return JSON.parse(execFileSync(python, ['-c', script], { input, encoding: 'utf8' })) as number[];
}

const near = (actual: readonly number[], expected: readonly number[], what: string): void => {
  assert.equal(actual.length, expected.length, what);
  actual.forEach((a, i) =>
    assert.ok(Math.abs(a - expected[i]!) < 1e-6, `${what}: ${actual.join(', ')} vs ${expected.join(', ')}`),
  );
};

test('a regular gantry tilt stays one block and is sheared straight: Y size, origin and z spacing by MITK’s rule, voxels as numpy projects them', async (t) => {
  // Five slices 2 mm apart along z, each 0.3 mm further along the column direction (+y).
  await withSeries(t, tilted(5, 0.3, 2), async (dir, python) => {
    const [read, ...more] = await readDicom(join(dir, 't2'));
    assert.equal(more.length, 0, 'one block');
    const v = read!.volume!;
    // shiftUp = (first − last)·column = −1.2 mm over 4 gaps: −0.3 mm a slice, so no origin
    // shift; the grid grows by trunc(1.2 / 0.5 + 2) = 4 rows (0.5 mm between rows); z spacing
    // is the part along the normal, 2.
    assert.deepEqual(v.dims, [6, 8 + 4, 5]);
    near(v.origin, [-5, -7, 10], 'origin');
    near(v.spacing, [0.75, 0.5, 2], 'spacing');
    assert.equal(v.componentType, 'int16');
    assert.equal(read!.properties['MITK.IO.reader.DICOM.GantyTiltCorrected'], true);
    assert.equal(read!.properties['dicomseriesreader.GantyTiltCorrected'], true);
    assert.equal(read!.properties['MITK.IO.reader.VolumeSplitReason'], undefined);
    const expected = expectedVoxels(python, dir, ['t0', 't1', 't2', 't3', 't4'], v, -32768);
    assert.deepEqual([...v.frames[0]!], expected);
    // The sheared slices hold filler where no slice reaches and moved rows elsewhere.
    assert.ok(expected.includes(-32768) && v.range[0] === -32768);
  });
});

test('a tilt the other way moves the origin back by the added rows and one more; negative values are cut toward zero', async (t) => {
  // Each slice 0.3 mm further along −y; values negative so that truncation and floor differ.
  await withSeries(t, tilted(5, -0.3, 2, -100), async (dir, python) => {
    const [read] = await readDicom(dir);
    const v = read!.volume!;
    // shiftUp = +1.2 mm: the origin moves 1.2 + 0.5 mm along −column.
    assert.deepEqual(v.dims, [6, 12, 5]);
    near(v.origin, [-5, -7 - 1.7, 10], 'origin');
    near(v.spacing, [0.75, 0.5, 2], 'spacing');
    const expected = expectedVoxels(python, dir, ['t0', 't1', 't2', 't3', 't4'], v, -32768);
    assert.deepEqual([...v.frames[0]!], expected);
    // Every voxel is negative and slices 1 to 4 sit 0.6, 1.2, 1.8, 2.4 rows off: their
    // interpolated values are fractions, cut toward zero (as numpy's trunc above), not floored.
    assert.ok(v.range[1] < 0);
  });
});

test('a shift along the row direction is no gantry tilt: the series splits with gantry_tilt_difference', async (t) => {
  const slices = tilted(4, 0, 2).map((s, i) => ({
    ...s,
    position: [-5 + 0.4 * i, -7, 10 + 2 * i] as [number, number, number],
  }));
  await withSeries(t, slices, async (dir) => {
    const all = await readDicom(dir);
    assert.equal(all.length, 4, 'every slice its own block');
    const [first] = await readDicom(join(dir, 't0'));
    assert.equal(first!.slices, 1);
    assert.equal(first!.properties['MITK.IO.reader.DICOM.GantyTiltCorrected'], false);
    assert.match(String(first!.properties['MITK.IO.reader.VolumeSplitReason']), /gantry_tilt_difference/);
  });
});

test('a tilted series loaded by the reference workbench downloads sheared, with GantyTiltCorrected on its data', async (t) => {
  await withSeries(t, tilted(5, 0.3, 2), async (dir) => {
    const [direct] = await readDicom(dir);
    await withWorkbench({}, async (wb) => {
      const created = await wb.call('POST', '/datastorage/nodes', {
        json: { transfer: { file_path: join(dir, 't0') } },
      });
      assert.equal(created.status, 201, created.text);
      const uid = created.json.data.uid;
      const props = await wb.call(
        'GET',
        `/datastorage/nodes/${uid}/properties?property_scope=data&names=MITK.IO.reader.DICOM.GantyTiltCorrected`,
      );
      assert.equal(props.json.data.properties['MITK.IO.reader.DICOM.GantyTiltCorrected'], true);
      const data = await wb.call('GET', `/datastorage/nodes/${uid}/data`);
      const volume = readImageBytes(data.bytes, 'nrrd');
      assert.deepEqual(volume.dims, [6, 12, 5]);
      assert.deepEqual(volume.spacing, [0.75, 0.5, 2]);
      assert.deepEqual([...volume.frames[0]!], [...direct!.volume!.frames[0]!]);
    });
  });
});

test('a tilt that would shear onto more voxels than can be held is refused, naming the file', async (t) => {
  // 50 mm a slice along the column over rows 1e-6 mm apart: 2·10⁸ rows.
  const slices = tilted(5, 50, 2).map((s) => ({ ...s, spacing: [1e-6, 0.75] as [number, number] }));
  await withSeries(t, slices, async (dir) => {
    await assert.rejects(readDicom(join(dir, 't0')), (err: unknown) => {
      assert.ok(err instanceof DicomReadError);
      assert.equal(err.code, 'UNSUPPORTED_PIXEL_DATA');
      assert.equal(err.file, join(dir, 't0'));
      assert.match(err.reason, /tilted gantry/);
      return true;
    });
  });
});
