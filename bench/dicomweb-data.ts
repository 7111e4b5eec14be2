// The DICOM data of the dicomweb benchmark besides the 300-slice CT of dicom-series.ts: a cohort
// of CT series (several series per study) and thousands of one-instance studies, written once by
// pydicom into .bench-tmp/dicomweb/, one folder per series, as an export holds them.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const SCRIPT = String.raw`
import os, sys
import numpy as np
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.uid import ExplicitVRLittleEndian
out, root, patient, total, per, slices, size = sys.argv[1], sys.argv[2], sys.argv[3], *map(int, sys.argv[4:8])
y, x = np.mgrid[0:size, 0:size]
r = np.hypot(x - size / 2, y - size / 2)
rng = np.random.default_rng(11)
for i in range(total):
    st, se = i // per + 1, i % per + 1
    study_uid, series_uid = '%s.%d' % (root, st), '%s.%d.%d' % (root, st, se)
    folder = os.path.join(out, 'study-%05d' % st, 'series-%d' % se)
    os.makedirs(folder, exist_ok=True)
    for k in range(slices):
        if size >= 64:
            # A body whose outline moves with z and a bright spot per series, plus noise: CT-like data.
            img = np.where(r < size * (0.3 + 0.1 * np.sin((k + se) / 20)), 40, -1000).astype(np.int32)
            img[np.hypot(x - size / 2, y - size * 0.7) < size * 0.05] = 700 + 20 * se
            img = img + rng.normal(0, 12, img.shape).astype(np.int32) + 1024
        else:
            img = np.full((size, size), 1024 + k + st, dtype=np.int32)
        meta = FileMetaDataset()
        meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.2'
        meta.MediaStorageSOPInstanceUID = '%s.%d' % (series_uid, k + 1)
        meta.TransferSyntaxUID = ExplicitVRLittleEndian
        ds = Dataset(); ds.file_meta = meta; ds.preamble = b'\0' * 128
        ds.is_little_endian = True; ds.is_implicit_VR = False
        ds.SOPClassUID = meta.MediaStorageSOPClassUID; ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
        ds.Modality = 'CT'; ds.PatientID = '%s%05d' % (patient, st); ds.PatientName = 'Bench^%d' % st
        ds.StudyDescription = 'Bench study %d' % st; ds.SeriesDescription = 'CT %d' % se
        ds.StudyDate = '2024%02d%02d' % (1 + st % 12, 1 + st % 28); ds.StudyTime = '120000'
        ds.AccessionNumber = 'A%06d' % st; ds.StudyID = str(st)
        ds.StudyInstanceUID = study_uid; ds.SeriesInstanceUID = series_uid
        ds.SeriesNumber = se; ds.InstanceNumber = k + 1; ds.AcquisitionNumber = 1
        ds.ImagePositionPatient = ['-125', '-125', str(-40 + k * 1.25)]
        ds.ImageOrientationPatient = ['1', '0', '0', '0', '1', '0']
        ds.PixelSpacing = ['0.9765625', '0.9765625']; ds.SliceThickness = '1.25'
        ds.Rows = size; ds.Columns = size; ds.SamplesPerPixel = 1; ds.PhotometricInterpretation = 'MONOCHROME2'
        ds.BitsAllocated = 16; ds.BitsStored = 16; ds.HighBit = 15; ds.PixelRepresentation = 1
        ds.RescaleIntercept = '-1024'; ds.RescaleSlope = '1'; ds.WindowCenter = '40'; ds.WindowWidth = '400'
        ds.PixelData = img.astype('<i2').tobytes()
        name = os.path.join(folder, '%04d.dcm' % (k + 1))
        try:
            ds.save_as(name, enforce_file_format=True)
        except TypeError:
            ds.save_as(name, write_like_original=True)
`;

export interface SeriesSet {
  /** The folder holding a folder per study, and in it one per series. */
  dir: string;
  /** Every file, absolute. */
  files: string[];
  /** The PatientID every one starts with (PatientID `<prefix>00001`, ...). */
  patientPrefix: string;
  /** Every series by its UIDs, in the order written. */
  series: { study: string; series: string; instances: number }[];
}

interface Shape {
  name: string;
  /** UID root of the set; studies are `<root>.<n>`, series `<root>.<n>.<m>`. */
  uidRoot: string;
  patientPrefix: string;
  series: number;
  seriesPerStudy: number;
  slices: number;
  size: number;
}

/** Every file below `dir`, sorted. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** The UIDs the script gives each series of a set. */
function seriesOf(shape: Shape): SeriesSet['series'] {
  return Array.from({ length: shape.series }, (_, i) => {
    const study = `${shape.uidRoot}.${Math.floor(i / shape.seriesPerStudy) + 1}`;
    return { study, series: `${study}.${(i % shape.seriesPerStudy) + 1}`, instances: shape.slices };
  });
}

/** The set in `root`, written on first use; the marker beside its folder says it is complete. */
async function seriesSet(root: string, python: string, shape: Shape): Promise<SeriesSet> {
  const dir = join(root, shape.name);
  const expected = shape.series * shape.slices;
  const found = { dir, patientPrefix: shape.patientPrefix, series: seriesOf(shape) };
  if (existsSync(`${dir}.complete`)) {
    const files = await filesUnder(dir);
    if (files.length === expected) return { ...found, files };
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  console.log(`writing ${shape.series} series of ${shape.slices} × ${shape.size}² into ${dir} (once)…`);
  const args = [shape.series, shape.seriesPerStudy, shape.slices, shape.size].map(String);
  execFileSync(python, ['-c', SCRIPT, dir, shape.uidRoot, shape.patientPrefix, ...args], { stdio: 'inherit' });
  await writeFile(`${dir}.complete`, '');
  const files = await filesUnder(dir);
  if (files.length !== expected) throw new Error(`pydicom wrote ${files.length} files into ${dir}, not ${expected}`);
  return { ...found, files };
}

/** A cohort of `series` CT series of 64 slices of 256², four to a study. */
export function cohortSeries(root: string, python: string, series: number): Promise<SeriesSet> {
  return seriesSet(root, python, {
    name: `cohort-${series}x64x256`,
    uidRoot: '1.2.826.0.1.3680043.8.498.78',
    patientPrefix: 'COHORT',
    series,
    seriesPerStudy: 4,
    slices: 64,
    size: 256,
  });
}

/** `studies` studies of one series of one 8×8 instance each. */
export function tinyStudies(root: string, python: string, studies: number): Promise<SeriesSet> {
  return seriesSet(root, python, {
    name: `tiny-${studies}`,
    uidRoot: '1.2.826.0.1.3680043.8.498.79',
    patientPrefix: 'TINY',
    series: studies,
    seriesPerStudy: 1,
    slices: 1,
    size: 8,
  });
}
