import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { readDicom } from '../../../src/volume/dicom/index.js';
import { readImageBytes } from '../../../src/volume/read-image.js';
import { withTempDir, withWorkbench } from '../../helpers/workbench.js';
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

/** Three time steps of three slices each, at the same positions; `times(step, slice)` adds tags. */
function dynamic(times: (step: number, slice: number) => Partial<SynthSlice>): SynthSlice[] {
  return [0, 1, 2].flatMap((step) =>
    axial(3, { prefix: `t${step}_` }).map((s, z) => ({
      ...s,
      instance: step * 3 + z + 1,
      value: 1000 * (step + 1),
      ...times(step, z),
    })),
  );
}

// Acquisition times of each step's three slices; the slices of a step are taken in order.
const ACQUISITION = [
  ['101500.250', '101500.000', '101500.5'],
  ['101502.3', '101503.1234', '101503.9999'],
  ['101510', '101511.5', '101512.25'],
];

test('3D+t from acquisition times: steps start at their earliest acquisition, in ms after step 0’s, the last ends at its latest', async (t) => {
  const slices = dynamic((step, z) => ({ acquisitionDate: '20240301', acquisitionTime: ACQUISITION[step]![z]! }));
  await withSeries(t, slices, async (dir) => {
    const [read, ...more] = await readDicom(join(dir, 't1_1'));
    assert.equal(more.length, 0);
    const v = read!.volume!;
    assert.equal(v.frames.length, 3);
    // Earliest of step 0: 10:15:00.000. Step 1 from 10:15:02.3, step 2 from 10:15:10.000 to
    // 10:15:12.250. DCMTK holds 02.3 s as the double 2.3, whose ms are (2.3 − 2) · 1000 =
    // 299.99…, cut to 299; so step 1 starts at 2299 ms.
    assert.deepEqual(v.timeBoundsMs, [0, 2299, 10000, 12250]);
    assert.equal(read!.properties['MITK.IO.reader.DICOM.3D+t'], true);
  });
});

test('acquisitions over midnight count across the date; without times steps follow TriggerTime; with neither, 1 ms steps', async (t) => {
  const overMidnight = dynamic((step, z) => ({
    acquisitionDate: step === 0 ? '20231231' : '20240101',
    acquisitionTime: step === 0 ? `23595${8 + (z % 2)}` : `00000${step * 2 + (z % 2)}`,
  }));
  await withSeries(t, overMidnight, async (dir) => {
    const [read] = await readDicom(dir);
    // 23:59:58 → 00:00:02 is 4 s; step 2 from 00:00:04 to 00:00:05.
    assert.deepEqual(read!.volume!.timeBoundsMs, [0, 4000, 6000, 7000]);
  });
  // Trigger times are taken as they are, while step 0 still starts at 0 (MITK's baseline).
  const triggered = dynamic((step) => ({ triggerTime: String([100, 450, 800][step]) }));
  await withSeries(t, triggered, async (dir) => {
    const [read] = await readDicom(dir);
    assert.deepEqual(read!.volume!.timeBoundsMs, [0, 450, 800, 800]);
  });
  await withSeries(
    t,
    dynamic(() => ({})),
    async (dir) => {
      const [read] = await readDicom(dir);
      const v = read!.volume!;
      assert.equal(v.frames.length, 3);
      assert.equal(v.timeBoundsMs, undefined, 'a proportional geometry');
      assert.deepEqual([v.timeOriginMs, v.timeStepMs], [0, 1]);
    },
  );
});

test('the reference workbench steps through a DICOM 3D+t image by its real time bounds', async (t) => {
  const slices = dynamic((step, z) => ({ acquisitionDate: '20240301', acquisitionTime: ACQUISITION[step]![z]! }));
  await withSeries(t, slices, async (dir) => {
    await withWorkbench({}, async (wb) => {
      const created = await wb.call('POST', '/datastorage/nodes', {
        json: { transfer: { file_path: join(dir, 't0_0') } },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal((await wb.call('POST', '/rendering/reinit')).status < 300, true);
      const time = async () => (await wb.call('GET', '/rendering/selected-time')).json;
      assert.deepEqual((await time()).bounds, { min_timepoint_ms: 0, max_timepoint_ms: 12250, steps: 3 });
      assert.equal((await wb.call('PUT', '/rendering/selected-time', { json: { timestep: 2 } })).status, 204);
      assert.deepEqual([(await time()).timestep, (await time()).timepoint_ms], [2, 10000]);
      // 5000 ms lies in step 1 (2299 to 10000), which a 1 ms or mean step would not say.
      assert.equal((await wb.call('PUT', '/rendering/selected-time', { json: { timepoint_ms: 5000 } })).status, 204);
      assert.deepEqual([(await time()).timestep, (await time()).timepoint_ms], [1, 2299]);
      const beyond = await wb.call('PUT', '/rendering/selected-time', { json: { timepoint_ms: 12250 } });
      assert.equal(beyond.status, 422, beyond.text);
      // The NRRD download carries the bounds as MITK writes its time geometry.
      const data = await wb.call('GET', `/datastorage/nodes/${created.json.data.uid}/data`);
      const header = new TextDecoder().decode(data.bytes.subarray(0, 2000));
      assert.match(header, /timepoints:=0 2299 10000 12250\n/);
      // and reads back with them.
      assert.deepEqual(readImageBytes(data.bytes, 'nrrd').timeBoundsMs, [0, 2299, 10000, 12250]);
    });
  });
});

test('a collapsed last step (all its files at one instant) lasts 1 ms, as MITK’s ArbitraryTimeGeometry gives it', async (t) => {
  const slices = dynamic((step) => ({ triggerTime: String([0, 450, 800][step]) }));
  await withSeries(t, slices, async (dir) => {
    await withWorkbench({}, async (wb) => {
      await wb.call('POST', '/datastorage/nodes', { json: { transfer: { file_path: dir } } });
      await wb.call('POST', '/rendering/reinit');
      const time = (await wb.call('GET', '/rendering/selected-time')).json;
      assert.deepEqual(time.bounds, { min_timepoint_ms: 0, max_timepoint_ms: 801, steps: 3 });
      assert.equal((await wb.call('PUT', '/rendering/selected-time', { json: { timepoint_ms: 801 } })).status, 204);
      assert.equal((await wb.call('GET', '/rendering/selected-time')).json.timestep, 2);
    });
  });
});
