import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { writeDemoDicom, DICOM_CT_DIR, DICOM_SEG_FILE } from '../../src/sim/demo-dicom.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { readImageFile } from '../../src/volume/read-image.js';
import { worldToIndex, indexToWorld, type Volume } from '../../src/volume/volume.js';
import { needs, PYTHON, run } from '../helpers/tools.js';
import { withTempDir } from '../volume/fixtures.js';

function valueAtWorld(v: Volume, p: [number, number, number]): number | undefined {
  const idx = worldToIndex(v, p).map((x) => Math.round(x + 1e-6));
  if (idx.some((x, a) => x < 0 || x >= v.dims[a]!)) return undefined;
  return v.frames[0]![idx[0]! + v.dims[0] * (idx[1]! + v.dims[1] * idx[2]!)];
}

async function listFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

test(
  'the DICOM CT is ct.nrrd voxel for voxel after dcm2niix, with the soft-tissue window',
  { skip: needs('dcm2niix') || needs('gdcmdump') },
  async () => {
    await withTempDir(async (dir) => {
      await writeDemoData(dir);
      const result = await writeDemoDicom(dir);
      assert.equal(result.ct.slices, 32);
      run('dcm2niix', ['-o', dir, '-f', 'from-dicom', '-z', 'n', join(dir, DICOM_CT_DIR)]);
      const fromDicom = await readImageFile(join(dir, 'from-dicom.nii'));
      const nrrd = await readImageFile(join(dir, 'ct.nrrd'));
      const [nx, ny, nz] = nrrd.dims;
      let compared = 0;
      for (let k = 0; k < nz; k += 3) {
        for (let j = 0; j < ny; j += 5) {
          for (let i = 0; i < nx; i += 5) {
            const p = indexToWorld(nrrd, i, j, k);
            assert.equal(valueAtWorld(fromDicom, p), nrrd.frames[0]![i + nx * (j + ny * k)], `voxel ${i},${j},${k}`);
            compared++;
          }
        }
      }
      assert.ok(compared > 4000);
      const sidecar = JSON.parse(await readFile(join(dir, 'from-dicom.json'), 'utf8')) as Record<string, unknown>;
      assert.equal(sidecar.Modality, 'CT');
      assert.equal(sidecar.SeriesDescription, 'CT');
      const first = (await readdir(join(dir, DICOM_CT_DIR))).sort()[0]!;
      const dump = run('gdcmdump', [join(dir, DICOM_CT_DIR, first)]);
      assert.match(dump, /\(0028,1050\) DS \[40\]/);
      assert.match(dump, /\(0028,1051\) DS \[400 ?\]/);
      assert.match(dump, /\(0028,1052\) DS \[-1024 ?\]/);
    });
  },
);

test(
  'the tumour SEG holds the label image: as many voxels per segment as tumour-label.nrrd',
  { skip: needs('pydicom') },
  async () => {
    await withTempDir(async (dir) => {
      await writeDemoData(dir);
      await writeDemoDicom(dir);
      const labels = await readImageFile(join(dir, 'tumour-label.nrrd'));
      const counts = [1, 2].map((value) => labels.frames[0]!.filter((v) => v === value).length);
      const script = `
import json, sys, pydicom
d = pydicom.dcmread(sys.argv[1])
a = d.pixel_array
sums = {}
for n, f in enumerate(d.PerFrameFunctionalGroupsSequence):
    s = int(f.SegmentIdentificationSequence[0].ReferencedSegmentNumber)
    sums[s] = sums.get(s, 0) + int(a[n].sum())
print(json.dumps({"labels": [s.SegmentLabel for s in d.SegmentSequence], "sums": [sums[1], sums[2]], "modality": d.Modality}))`;
      const seg = JSON.parse(run(PYTHON, ['-c', script, join(dir, DICOM_SEG_FILE)])) as {
        labels: string[];
        sums: number[];
        modality: string;
      };
      assert.equal(seg.modality, 'SEG');
      assert.deepEqual(seg.labels, ['tumour', 'organ']);
      assert.deepEqual(seg.sums, counts);
      assert.ok(counts[0]! > 100, 'the tumour has voxels');
    });
  },
);

test(
  'the DICOM tree: patients, studies and series as pydicom reads them; names with and without .dcm; the same bytes from the same seed',
  { skip: needs('pydicom') },
  async () => {
    await withTempDir(async (dir) => {
      const result = await writeDemoDicom(join(dir, 'a'));
      await writeDemoDicom(join(dir, 'b'));
      const tree = join(dir, 'a', 'dicom-studies');
      const script = `
import json, os, sys, pydicom
series = {}
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        d = pydicom.dcmread(os.path.join(root, f), stop_before_pixels=True)
        key = d.SeriesInstanceUID
        s = series.setdefault(key, {"dir": os.path.relpath(root, sys.argv[1]), "patient": d.PatientID, "study": d.StudyInstanceUID,
            "description": d.SeriesDescription, "modality": d.Modality, "files": 0})
        s["files"] += 1
print(json.dumps(sorted(series.values(), key=lambda s: (s["dir"], s["description"]))))`;
      const series = JSON.parse(run(PYTHON, ['-c', script, tree])) as {
        dir: string;
        patient: string;
        study: string;
        description: string;
        modality: string;
        files: number;
      }[];
      assert.deepEqual(
        series.map((s) => [s.dir, s.patient, s.description, s.modality, s.files]),
        [
          ['P1/ST1', 'DEMO001', 'ABDOMEN ARTERIAL', 'CT', 32],
          ['P1/ST1', 'DEMO001', 'ABDOMEN VENOUS', 'CT', 32],
          ['P2/ST1/SE2', 'DEMO002', 'ABDOMEN ARTERIAL', 'CT', 32],
          ['P2/ST2/SE1', 'DEMO002', 'T1 AXIAL', 'MR', 40],
          ['P3/ST1', 'DEMO003', 'PORTAL VENOUS', 'CT', 32],
        ],
      );
      assert.equal(series[0]!.study, series[1]!.study, 'the two phases are one study');
      assert.equal(new Set(series.map((s) => s.study)).size, 4);
      assert.equal(result.tree.patients, 3);
      assert.equal(result.tree.studies, 4);
      const files = await listFiles(tree);
      assert.ok(files.some((f) => f.endsWith('.dcm')) && files.some((f) => !f.includes('.')));
      assert.deepEqual(files, await listFiles(join(dir, 'b', 'dicom-studies')));
      for (const f of files.filter((_, i) => i % 17 === 0)) {
        assert.deepEqual(await readFile(join(tree, f)), await readFile(join(dir, 'b', 'dicom-studies', f)), f);
      }
    });
  },
);
