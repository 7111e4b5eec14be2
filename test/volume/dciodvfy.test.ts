/**
 * Every kind of DICOM object wbplay writes passes dicom3tools' IOD validator without an error:
 * an archive (or a viewer's import) may refuse an object whose modules are incomplete.
 */
import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeDemoDicom } from '../../src/sim/demo-dicom.js';
import { seriesIdentity, writeDicomSeries } from '../../src/volume/dicom/write.js';
import { dicomSeg } from '../../src/volume/dicom/write-seg.js';
import { derivedUid, secondaryCapture, sourceStudyOf } from '../../src/volume/dicom/write-sc.js';
import type { Volume } from '../../src/volume/volume.js';
import { dciodvfyErrors, needsDciodvfy } from '../helpers/dciodvfy.js';
import { sampleVolume, withTempDir } from './fixtures.js';

/** Every file's errors, by file; an empty object when all are clean. */
function errorsOf(files: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const file of files) {
    const errors = dciodvfyErrors(file);
    if (errors.length > 0) out[file] = errors;
  }
  return out;
}

test(
  'the demo export: every CT slice, the SEG and the study tree (CT and MR) are dciodvfy-clean',
  { skip: needsDciodvfy() },
  async () => {
    await withTempDir(async (dir) => {
      const demo = await writeDemoDicom(dir);
      const ct = (await readdir(demo.ct.dir)).map((name) => join(demo.ct.dir, name));
      assert.equal(ct.length, demo.ct.slices);
      assert.deepEqual(errorsOf(ct), {});
      assert.deepEqual(errorsOf([demo.seg]), {});
      assert.ok(demo.tree.series.some((s) => s.modality === 'MR'));
      assert.deepEqual(errorsOf(demo.files), {});
    });
  },
);

test(
  'series of every modality the writer knows, 8 and 16 bits, float values, with and without a body part',
  { skip: needsDciodvfy() },
  async () => {
    await withTempDir(async (dir) => {
      const grid = sampleVolume({ dims: [6, 5, 3] });
      const bytes: Volume = {
        ...grid,
        componentType: 'uint8',
        frames: [grid.frames[0]!.map((v) => Math.abs(v) % 256)],
        range: [0, 255],
      };
      const floats: Volume = {
        ...grid,
        componentType: 'float32',
        frames: [grid.frames[0]!.map((v) => v * 0.37 - 5.1)],
      };
      floats.range = [Math.min(...floats.frames[0]!), Math.max(...floats.frames[0]!)];
      const files: string[] = [];
      // OT and CR have no storage class of their own here: they are written as secondary capture.
      for (const modality of ['CT', 'MR', 'PT', 'OT', 'CR'])
        for (const [kind, volume] of Object.entries({ int16: grid, uint8: bytes, float32: floats }))
          for (const tags of [{}, { BodyPartExamined: 'ABDOMEN' }])
            files.push(
              ...(await writeDicomSeries(volume, join(dir, `${modality}-${kind}-${Object.keys(tags).length}`), {
                modality,
                seed: `${modality} ${kind}`,
                window: { center: 40, width: 400 },
                tags,
              })),
            );
      assert.equal(files.length, 5 * 3 * 2 * 3);
      assert.deepEqual(errorsOf(files), {});
    });
  },
);

test(
  'SEGs from labels or label groups, on CT and MR, with a segment without voxels, are dciodvfy-clean',
  { skip: needsDciodvfy() },
  async () => {
    await withTempDir(async (dir) => {
      const grid = sampleVolume({ dims: [6, 5, 4] });
      const values = new Float32Array(grid.frames[0]!.length);
      values[7] = 1;
      values[6 * 5 * 2 + 3] = 1;
      values[6 * 5 * 3 + 1] = 2;
      const labels: Volume = { ...grid, frames: [values], componentType: 'uint16', range: [0, 2] };
      const label = (value: number, name: string, color: [number, number, number]) => ({
        value,
        name,
        color,
        opacity: 1,
        visible: true,
        locked: true,
        extra: {},
      });
      const grouped: Volume = {
        ...labels,
        segmentation: {
          unlabeledLock: false,
          groups: [
            { name: 'one', labels: [label(1, 'Tumour', [1, 0, 0])], extra: {}, frames: [values] },
            { name: 'two', labels: [label(2, 'Liver', [0, 0, 1])], extra: {}, frames: [values] },
          ],
        },
      };
      const files = {
        'labels-ct.dcm': dicomSeg(labels, seriesIdentity(grid, { seed: 's1' }), {
          labels: [label(1, 'Tumour', [1, 0, 0]), label(2, 'Liver', [0.2, 0.6, 1]), label(3, 'Empty', [0, 1, 0])],
        }),
        'groups-mr.dcm': dicomSeg(grouped, seriesIdentity(grid, { seed: 's2', modality: 'MR' })),
      };
      for (const [name, data] of Object.entries(files)) await writeFile(join(dir, name), data);
      assert.deepEqual(errorsOf(Object.keys(files).map((name) => join(dir, name))), {});
    });
  },
);

test('a secondary capture of a demo CT slice is dciodvfy-clean', { skip: needsDciodvfy() }, async () => {
  await withTempDir(async (dir) => {
    const demo = await writeDemoDicom(join(dir, 'demo'));
    const [first] = (await readdir(demo.ct.dir)).sort();
    const study = await sourceStudyOf(join(demo.ct.dir, first!));
    const data = new Uint8Array(32 * 24 * 4).map((_, i) => (i * 7) % 256);
    const path = join(dir, 'sc.dcm');
    await writeFile(
      path,
      secondaryCapture(
        { width: 32, height: 24, data },
        {
          study,
          seriesInstanceUid: derivedUid(study.studyInstanceUid, 'demo', 'captures'),
          sopInstanceUid: derivedUid(study.studyInstanceUid, 'demo', 'captures', 'shot.png'),
          seriesNumber: 900,
          instanceNumber: 1,
          seriesDescription: 'Captures',
          contentDate: '20240101',
          contentTime: '120000',
          description: 'shot.png',
        },
      ),
    );
    assert.deepEqual(dciodvfyErrors(path), []);
  });
});

test('dciodvfyErrors reports what dciodvfy finds wrong', { skip: needsDciodvfy() }, async () => {
  await withTempDir(async (dir) => {
    // A CT without the Type 2 attributes of its CT Image module, as this writer once wrote it.
    const [path] = await writeDicomSeries(sampleVolume({ dims: [2, 2, 1] }), dir, {
      tags: { KVP: undefined, AcquisitionNumber: undefined },
    });
    const errors = dciodvfyErrors(path!);
    assert.equal(errors.length, 2, errors.join('\n'));
    assert.match(errors[0]!, /^Error - Missing attribute Type 2 Required Element=<KVP>/);
    assert.match(errors[1]!, /AcquisitionNumber/);
    assert.throws(() => dciodvfyErrors(join(dir, 'absent.dcm')), /could not check/);
  });
});
