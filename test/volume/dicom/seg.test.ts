import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import dicomParser from 'dicom-parser';
import { readDicom } from '../../../src/volume/dicom/index.js';
import { labToRgb } from '../../../src/volume/dicom/seg.js';
import { withTempDir } from '../../helpers/workbench.js';
import { needs, referenceParts } from './reference-tools.js';

test("pydicom's liver_1frame.dcm SEG reads as one multi-label segmentation: the Liver label, its colour, GDCM's bits", async (t) => {
  const parts = referenceParts(['gdcmconv']);
  if (!needs(t, parts.missing)) return;
  await withTempDir(async (dir) => {
    for (const name of ['liver_1frame.dcm', 'liver_expb_1frame.dcm']) {
      const source = join(parts.files!, name);
      const [read, ...more] = await readDicom(source);
      assert.equal(more.length, 0);
      assert.equal(read!.kind, 'segmentation');
      const segmentation = read!.segmentation!;
      // SegmentsOverlap is absent, so each segment gets a group of its own (as dcmqi and MITK do).
      assert.equal(segmentation.groups.length, 1);
      const [label] = segmentation.groups[0]!.labels;
      assert.equal(label!.name, 'Liver');
      assert.equal(label!.value, 1);
      assert.deepEqual(label!.color, labToRgb([41661, 41167, 40792]));
      const volume = read!.volume!;
      assert.deepEqual(volume.dims, [512, 512, 1]);
      assert.deepEqual(volume.origin, [-235.2, -226.8, -128.69]);
      assert.equal(volume.componentType, 'uint16');
      // GDCM's uncompressed copy keeps the 1-bit packing: bit i of the frame is voxel i.
      const raw = join(dir, `${name}.raw`);
      execFileSync('gdcmconv', ['--raw', source, raw], { stdio: 'ignore' });
      const bytes = readFileSync(raw);
      const ds = dicomParser.parseDicom(bytes);
      const at = ds.elements.x7fe00010!.dataOffset;
      const frame = volume.frames[0]!;
      let set = 0;
      for (let i = 0; i < frame.length; i++) {
        const bit = (bytes[at + (i >> 3)]! >> (i & 7)) & 1;
        assert.equal(frame[i], bit, `voxel ${i}`);
        set += bit;
      }
      assert.ok(set > 1000, `the liver covers ${set} voxels`);
    }
  });
});

test('CIELab to RGB: white, black and a saturated red come out as sRGB does', () => {
  const near = (a: number[], b: number[]): void =>
    a.forEach((v, i) => assert.ok(Math.abs(v - b[i]!) < 0.01, `${a} vs ${b}`));
  near(labToRgb([65535, 32896, 32896]), [1, 1, 1]);
  near(labToRgb([0, 32896, 32896]), [0, 0, 0]);
  // sRGB red is L 53.24, a 80.09, b 67.20.
  near(labToRgb([(53.24 / 100) * 65535, ((80.09 + 128) / 255) * 65535, ((67.2 + 128) / 255) * 65535]), [1, 0, 0]);
});
