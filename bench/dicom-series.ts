// The benchmark's CT series: 300 slices of 512×512 int16 (about 150 MB), written once by
// pydicom into .bench-tmp/ under random file names (so names say nothing of the slice order),
// and a JPEG 2000 lossless copy made by gdcmconv --j2k, file by file.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const SLICES = 300;
export const SIZE = 512;

const SCRIPT = String.raw`
import os, sys, hashlib
import numpy as np
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.uid import ExplicitVRLittleEndian
out, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
y, x = np.mgrid[0:size, 0:size]
r = np.hypot(x - size / 2, y - size / 2)
rng = np.random.default_rng(7)
for k in range(count):
    # A body of soft tissue with a bright spine and lungs that move with z, plus noise: CT-like data that compresses like CT.
    img = np.where(r < size * 0.42, 40, -1000).astype(np.int32)
    img[(np.hypot(x - size * 0.35, y - size * 0.45) < size * (0.1 + 0.03 * np.sin(k / 40)))] = -850
    img[(np.hypot(x - size * 0.65, y - size * 0.45) < size * (0.1 + 0.03 * np.cos(k / 40)))] = -850
    img[(np.hypot(x - size / 2, y - size * 0.7) < size * 0.05)] = 700
    img = img + rng.normal(0, 12, img.shape).astype(np.int32) + 1024
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.2'
    meta.MediaStorageSOPInstanceUID = '1.2.826.0.1.3680043.8.498.77.%d' % (k + 1)
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = Dataset(); ds.file_meta = meta; ds.preamble = b'\0' * 128
    ds.is_little_endian = True; ds.is_implicit_VR = False
    ds.SOPClassUID = meta.MediaStorageSOPClassUID; ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.Modality = 'CT'; ds.PatientID = 'BENCH'; ds.StudyDescription = 'Bench'; ds.SeriesDescription = 'CT 300'
    ds.StudyInstanceUID = '1.2.826.0.1.3680043.8.498.77.0'; ds.SeriesInstanceUID = '1.2.826.0.1.3680043.8.498.77.1'
    ds.SeriesNumber = 1; ds.InstanceNumber = k + 1; ds.AcquisitionNumber = 1
    ds.ImagePositionPatient = ['-250', '-250', str(-300 + k * 1.25)]
    ds.ImageOrientationPatient = ['1', '0', '0', '0', '1', '0']
    ds.PixelSpacing = ['0.9765625', '0.9765625']; ds.SliceThickness = '1.25'
    ds.Rows = size; ds.Columns = size; ds.SamplesPerPixel = 1; ds.PhotometricInterpretation = 'MONOCHROME2'
    ds.BitsAllocated = 16; ds.BitsStored = 16; ds.HighBit = 15; ds.PixelRepresentation = 1
    ds.RescaleIntercept = '-1024'; ds.RescaleSlope = '1'; ds.WindowCenter = '40'; ds.WindowWidth = '400'
    ds.PixelData = img.astype('<i2').tobytes()
    name = hashlib.sha1(str(k).encode()).hexdigest()[:12]
    try:
        ds.save_as(os.path.join(out, name), enforce_file_format=True)
    except TypeError:
        ds.save_as(os.path.join(out, name), write_like_original=True)
`;

// The same series as one Enhanced CT object: frames in position order, positions per frame,
// orientation, pixel measures and rescale shared, the stored pixels as they are.
const ENHANCED = String.raw`
import os, sys
import numpy as np, pydicom
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.sequence import Sequence
from pydicom.uid import ExplicitVRLittleEndian
src, out = sys.argv[1], sys.argv[2]
files = [pydicom.dcmread(os.path.join(src, n)) for n in os.listdir(src)]
files.sort(key=lambda d: float(d.ImagePositionPatient[2]))
f0 = files[0]
meta = FileMetaDataset()
meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.2.1'
meta.MediaStorageSOPInstanceUID = '1.2.826.0.1.3680043.8.498.78.1'
meta.TransferSyntaxUID = ExplicitVRLittleEndian
ds = Dataset(); ds.file_meta = meta; ds.preamble = b'\0' * 128
ds.is_little_endian = True; ds.is_implicit_VR = False
ds.SOPClassUID = meta.MediaStorageSOPClassUID; ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
for key in ('Modality', 'PatientID', 'StudyDescription', 'StudyInstanceUID', 'SeriesNumber', 'Rows', 'Columns', 'SamplesPerPixel',
            'PhotometricInterpretation', 'BitsAllocated', 'BitsStored', 'HighBit', 'PixelRepresentation'):
    setattr(ds, key, f0.get(key))
ds.SeriesDescription = 'CT 300 enhanced'; ds.SeriesInstanceUID = '1.2.826.0.1.3680043.8.498.78.2'
ds.ImageType = ['ORIGINAL', 'PRIMARY', 'AXIAL', 'NONE']; ds.NumberOfFrames = len(files)
shared = Dataset()
pm = Dataset(); pm.PixelSpacing = f0.PixelSpacing; pm.SliceThickness = f0.SliceThickness
po = Dataset(); po.ImageOrientationPatient = f0.ImageOrientationPatient
pvt = Dataset(); pvt.RescaleIntercept = f0.RescaleIntercept; pvt.RescaleSlope = f0.RescaleSlope; pvt.RescaleType = 'HU'
shared.PixelMeasuresSequence = Sequence([pm]); shared.PlaneOrientationSequence = Sequence([po])
shared.PixelValueTransformationSequence = Sequence([pvt])
ds.SharedFunctionalGroupsSequence = Sequence([shared])
groups = []
for f in files:
    g = Dataset(); pp = Dataset(); pp.ImagePositionPatient = f.ImagePositionPatient
    g.PlanePositionSequence = Sequence([pp]); groups.append(g)
ds.PerFrameFunctionalGroupsSequence = Sequence(groups)
ds.PixelData = b''.join(f.PixelData for f in files)
try:
    ds.save_as(os.path.join(out, 'ct-enhanced.dcm'), enforce_file_format=True)
except TypeError:
    ds.save_as(os.path.join(out, 'ct-enhanced.dcm'), write_like_original=False)
`;

// The marker sits beside the folder, so the folder holds the series' files alone.
async function complete(dir: string, count: number): Promise<boolean> {
  return existsSync(`${dir}.complete`) && (await readdir(dir)).length === count;
}

/** The raw and the JPEG 2000 folders, and the folder of the one enhanced file, made on first use. */
export async function benchSeries(
  root: string,
  python: string,
): Promise<{ raw: string; j2k: string; enhanced: string }> {
  const raw = join(root, 'ct-raw');
  const j2k = join(root, 'ct-j2k');
  if (!(await complete(raw, SLICES))) {
    await rm(raw, { recursive: true, force: true });
    await mkdir(raw, { recursive: true });
    console.log(`writing the ${SLICES}-slice series into ${raw} (once)…`);
    execFileSync(python, ['-c', SCRIPT, raw, String(SLICES), String(SIZE)], { stdio: 'inherit' });
    await writeFile(`${raw}.complete`, '');
  }
  if (!(await complete(j2k, SLICES))) {
    await rm(j2k, { recursive: true, force: true });
    await mkdir(j2k, { recursive: true });
    console.log(`converting it to JPEG 2000 lossless with gdcmconv --j2k (once)…`);
    for (const name of await readdir(raw)) {
      execFileSync('gdcmconv', ['--j2k', join(raw, name), join(j2k, name)]);
    }
    await writeFile(`${j2k}.complete`, '');
  }
  const enhanced = join(root, 'ct-enhanced');
  if (!(await complete(enhanced, 1))) {
    await rm(enhanced, { recursive: true, force: true });
    await mkdir(enhanced, { recursive: true });
    console.log(`writing the same series as one ${SLICES}-frame Enhanced CT (once)…`);
    execFileSync(python, ['-c', ENHANCED, raw, enhanced], { stdio: 'inherit' });
    await writeFile(`${enhanced}.complete`, '');
  }
  return { raw, j2k, enhanced };
}

/** A python3 that imports the given modules (Debian's first: a pyenv one may lack them), or undefined. */
export function pythonWith(modules: string): string | undefined {
  for (const candidate of ['/usr/bin/python3', 'python3']) {
    try {
      execFileSync(candidate, ['-c', `import ${modules}`], { stdio: 'ignore' });
      return candidate;
    } catch {
      // the next one
    }
  }
  return undefined;
}
