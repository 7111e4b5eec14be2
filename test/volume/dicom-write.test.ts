import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { dicomSeries, seriesIdentity, writeDicomSeries } from '../../src/volume/dicom/write.js';
import { dicomSeg } from '../../src/volume/dicom/write-seg.js';
import { readImageFile } from '../../src/volume/read-image.js';
import { indexToWorld, worldToIndex, type Volume } from '../../src/volume/volume.js';
import { needs, PYTHON, run } from '../helpers/tools.js';
import { sampleVolume, withTempDir } from './fixtures.js';

/** Oblique (sagittal-like) grid with unequal spacings, so a swapped PixelSpacing or axis shows. */
function ct(): Volume {
  return sampleVolume({ dims: [6, 5, 4] });
}

/** The value at a world point of a volume, by nearest voxel; undefined outside it. */
function valueAtWorld(v: Volume, p: [number, number, number]): number | undefined {
  const idx = worldToIndex(v, p).map((x) => Math.round(x + 1e-6));
  if (idx.some((x, a) => x < 0 || x >= v.dims[a]!)) return undefined;
  return v.frames[0]![idx[0]! + v.dims[0] * (idx[1]! + v.dims[1] * idx[2]!)];
}

const PYDICOM_SERIES = `
import json, sys, glob, os, pydicom
out = []
for f in sorted(os.listdir(sys.argv[1])):
    d = pydicom.dcmread(os.path.join(sys.argv[1], f))
    a = d.pixel_array * float(d.RescaleSlope) + float(d.RescaleIntercept)
    out.append({
        "file": f, "ts": str(d.file_meta.TransferSyntaxUID), "instance": int(d.InstanceNumber),
        "ipp": [float(x) for x in d.ImagePositionPatient], "iop": [float(x) for x in d.ImageOrientationPatient],
        "spacing": [float(x) for x in d.PixelSpacing], "thickness": float(d.SliceThickness),
        "rows": d.Rows, "columns": d.Columns, "window": [float(d.WindowCenter), float(d.WindowWidth)],
        "series": d.SeriesInstanceUID, "study": d.StudyInstanceUID, "modality": d.Modality,
        "description": d.SeriesDescription, "patient": d.PatientID, "values": a.flatten().tolist()})
print(json.dumps(out))
`;

test(
  'a series read back by pydicom: one file per slice, explicit VR little endian, values and tags as written',
  { skip: needs('pydicom') },
  async () => {
    await withTempDir(async (dir) => {
      const volume = ct();
      await writeDicomSeries(volume, dir, {
        seed: 'p1',
        window: { center: 40, width: 400 },
        seriesDescription: 'ARTERIAL',
      });
      const slices = JSON.parse(run(PYTHON, ['-c', PYDICOM_SERIES, dir])) as {
        file: string;
        ts: string;
        instance: number;
        ipp: number[];
        iop: number[];
        spacing: number[];
        thickness: number;
        rows: number;
        columns: number;
        window: number[];
        series: string;
        study: string;
        modality: string;
        description: string;
        patient: string;
        values: number[];
      }[];
      assert.equal(slices.length, 4);
      const [columns, rows] = volume.dims;
      for (const s of slices) {
        const k = s.instance - 1;
        assert.equal(s.ts, '1.2.840.10008.1.2.1');
        assert.deepEqual([s.rows, s.columns], [rows, columns]);
        // Row spacing (y, between rows) first: 1.5 then 0.8.
        assert.deepEqual(s.spacing, [1.5, 0.8]);
        assert.equal(s.thickness, 2.5);
        assert.deepEqual(s.iop, [0, 1, 0, 0, 0, -1]);
        assert.deepEqual(s.ipp, indexToWorld(volume, 0, 0, k));
        assert.deepEqual(s.window, [40, 400]);
        assert.equal(s.modality, 'CT');
        assert.equal(s.description, 'ARTERIAL');
        assert.deepEqual(
          s.values,
          Array.from(volume.frames[0]!.subarray(k * rows * columns, (k + 1) * rows * columns)),
        );
      }
      assert.equal(new Set(slices.map((s) => s.series)).size, 1);
    });
  },
);

test(
  'GDCM reads every file and its tags: PixelSpacing in row\\column order, window, rescale',
  { skip: needs('gdcmdump') },
  async () => {
    await withTempDir(async (dir) => {
      const paths = await writeDicomSeries(ct(), dir, {
        seed: 'g1',
        window: { center: -600, width: 1500 },
        naming: 'bare',
      });
      for (const path of paths) {
        const dump = run('gdcmdump', [path]);
        assert.match(dump, /\(0002,0010\) UI \[1\.2\.840\.10008\.1\.2\.1\]/);
        assert.match(dump, /\(0028,0030\) DS \[1\.5\\0\.8 ?\]/);
        assert.match(dump, /\(0028,1050\) DS \[-600 ?\]/);
        assert.match(dump, /\(0028,1051\) DS \[1500 ?\]/);
        assert.match(dump, /\(0028,0103\) US 1/);
        // gdcmconv decodes the pixel data and writes it again: a malformed element fails here.
        run('gdcmconv', ['--raw', path, `${path}.raw`]);
      }
    });
  },
);

test(
  'dcm2niix converts the series with its geometry: every voxel lands at its own world position',
  { skip: needs('dcm2niix') },
  async () => {
    await withTempDir(async (dir) => {
      const volume = ct();
      const series = join(dir, 'series');
      await writeDicomSeries(volume, series, { seed: 'n1', naming: 'shuffled' });
      run('dcm2niix', ['-o', dir, '-f', 'converted', '-z', 'n', series]);
      const nifti = await readImageFile(join(dir, 'converted.nii'));
      assert.deepEqual([...nifti.dims].sort(), [...volume.dims].sort());
      assert.deepEqual([...nifti.spacing].map((s) => Math.round(s * 1e4) / 1e4).sort(), [0.8, 1.5, 2.5]);
      const [nx, ny, nz] = volume.dims;
      for (let k = 0; k < nz; k++) {
        for (let j = 0; j < ny; j++) {
          for (let i = 0; i < nx; i++) {
            const p = indexToWorld(volume, i, j, k);
            assert.equal(valueAtWorld(nifti, p), volume.frames[0]![i + nx * (j + ny * k)], `voxel ${i},${j},${k}`);
          }
        }
      }
    });
  },
);

test('the same seed writes the same bytes; names can be extension-less or out of slice order', () => {
  const volume = ct();
  const a = dicomSeries(volume, { seed: 'same' });
  const b = dicomSeries(volume, { seed: 'same' });
  assert.deepEqual(a, b);
  const other = seriesIdentity(volume, { seed: 'other' });
  assert.notEqual(other.seriesInstanceUid, seriesIdentity(volume, { seed: 'same' }).seriesInstanceUid);
  for (const uid of [other.studyInstanceUid, other.seriesInstanceUid, ...other.sopInstanceUids]) {
    assert.match(uid, /^2\.25\.[1-9][0-9]*$/);
    assert.ok(uid.length <= 64);
  }
  assert.deepEqual(
    a.map((f) => f.name),
    ['IM00001.dcm', 'IM00002.dcm', 'IM00003.dcm', 'IM00004.dcm'],
  );
  assert.deepEqual(
    dicomSeries(volume, { naming: 'bare' }).map((f) => f.name),
    ['00001', '00002', '00003', '00004'],
  );
  const shuffled = dicomSeries(volume, { seed: 'same', naming: 'shuffled' }).map((f) => f.name);
  assert.ok(shuffled.every((n) => /^[0-9A-F]{12}$/.test(n)));
  assert.notDeepEqual([...shuffled].sort(), shuffled, 'sorted names are not in slice order');
});

test('tag overrides: any keyword on every slice, per slice, or removed', { skip: needs('pydicom') }, async () => {
  await withTempDir(async (dir) => {
    await writeDicomSeries(ct(), dir, {
      tags: { SeriesDescription: 'override', PatientName: undefined, BodyPartExamined: 'CHEST' },
      sliceTags: (k) => ({ InstanceNumber: 10 - k }),
    });
    const script = `
import sys, os, pydicom
for f in sorted(os.listdir(sys.argv[1])):
    d = pydicom.dcmread(os.path.join(sys.argv[1], f))
    print(d.InstanceNumber, d.SeriesDescription, d.BodyPartExamined, 'PatientName' in d)`;
    assert.deepEqual(run(PYTHON, ['-c', script, dir]).trim().split('\n'), [
      '10 override CHEST False',
      '9 override CHEST False',
      '8 override CHEST False',
      '7 override CHEST False',
    ]);
    assert.equal((await readdir(dir)).length, 4);
  });
});

test(
  'a DICOM SEG read back by pydicom: a segment per label with its name and colour, frames where it has voxels',
  { skip: needs('pydicom') },
  async () => {
    await withTempDir(async (dir) => {
      const grid = ct();
      const labels = new Float32Array(grid.frames[0]!.length);
      labels[7] = 1; // slice 0
      labels[6 * 5 * 2 + 3] = 1; // slice 2
      labels[6 * 5 * 3 + 1] = 2; // slice 3
      const volume: Volume = { ...grid, frames: [labels], componentType: 'uint16', range: [0, 2] };
      const reference = seriesIdentity(grid, { seed: 's1' });
      const path = join(dir, 'seg.dcm');
      await writeFile(
        path,
        dicomSeg(volume, reference, {
          labels: [
            { value: 1, name: 'Tumour', color: [1, 0, 0] },
            { value: 2, name: 'Liver', color: [0.2, 0.6, 1] },
          ],
        }),
      );
      const script = `
import json, sys, pydicom
d = pydicom.dcmread(sys.argv[1])
a = d.pixel_array
frames = [{"segment": int(f.SegmentIdentificationSequence[0].ReferencedSegmentNumber),
           "ipp": [float(x) for x in f.PlanePositionSequence[0].ImagePositionPatient],
           "on": [int(i) for i in a[n].flatten().nonzero()[0]]} for n, f in enumerate(d.PerFrameFunctionalGroupsSequence)]
print(json.dumps({"sop": d.SOPClassUID, "modality": d.Modality, "type": d.SegmentationType,
  "frame_of_reference": d.FrameOfReferenceUID, "study": d.StudyInstanceUID,
  "referenced": d.ReferencedSeriesSequence[0].SeriesInstanceUID,
  "segments": [[int(s.SegmentNumber), s.SegmentLabel, [int(x) for x in s.RecommendedDisplayCIELabValue]] for s in d.SegmentSequence],
  "spacing": [float(x) for x in d.SharedFunctionalGroupsSequence[0].PixelMeasuresSequence[0].PixelSpacing],
  "frames": frames}))`;
      const seg = JSON.parse(run(PYTHON, ['-c', script, path])) as {
        sop: string;
        modality: string;
        type: string;
        frame_of_reference: string;
        study: string;
        referenced: string;
        segments: [number, string, number[]][];
        spacing: number[];
        frames: { segment: number; ipp: number[]; on: number[] }[];
      };
      assert.equal(seg.sop, '1.2.840.10008.5.1.4.1.1.66.4');
      assert.equal(seg.modality, 'SEG');
      assert.equal(seg.type, 'BINARY');
      assert.equal(seg.frame_of_reference, reference.frameOfReferenceUid);
      assert.equal(seg.study, reference.studyInstanceUid);
      assert.equal(seg.referenced, reference.seriesInstanceUid);
      assert.deepEqual(seg.spacing, [1.5, 0.8]);
      assert.deepEqual(
        seg.segments.map(([n, name]) => [n, name]),
        [
          [1, 'Tumour'],
          [2, 'Liver'],
        ],
      );
      // CIELab of pure red in DICOM's scaling (L 0..65535, a and b offset by 128): dcmqi and MITK
      // turn it back into RGB 255, 0, 0.
      const [l, a, b] = seg.segments[0]![2];
      assert.ok(Math.abs(l! - 34885) <= 1 && Math.abs(a! - 53486) <= 1 && Math.abs(b! - 50171) <= 1, `${l} ${a} ${b}`);
      assert.deepEqual(
        seg.frames.map((f) => [f.segment, f.ipp, f.on]),
        [
          [1, indexToWorld(grid, 0, 0, 0), [7]],
          [1, indexToWorld(grid, 0, 0, 2), [3]],
          [2, indexToWorld(grid, 0, 0, 3), [1]],
        ],
      );
    });
  },
);
