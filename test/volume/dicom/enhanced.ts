import { execFileSync } from 'node:child_process';

/**
 * Enhanced multi-frame objects made by pydicom from single-frame files: the frames' pixels as
 * they are stored, positions in per-frame Plane Position items, the rest in the shared or the
 * per-frame functional groups as asked. The single-frame series stays the oracle's other half:
 * the same voxels and geometry read two ways.
 */
export interface EnhancedSpec {
  /** Single-frame files, in the order the frames are to be stored. */
  sources: string[];
  out: string;
  sop?: 'ct' | 'mr' | 'legacy-ct';
  /** Orientation in every frame's group rather than the shared one. */
  perFrameOrientation?: boolean;
  /** Pixel Value Transformation: shared (from the first source), one per frame (given), or none. */
  rescale?: 'shared' | Array<[intercept: number, slope: number]>;
  /** A Frame VOI LUT in the shared groups (and no top-level window). */
  voi?: [center: number, width: number];
  /** A top-level window as well. */
  topLevelWindow?: [center: number, width: number];
}

const SCRIPT = String.raw`
import json, sys
import numpy as np, pydicom
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.sequence import Sequence
from pydicom.uid import ExplicitVRLittleEndian
spec = json.load(sys.stdin)
srcs = [pydicom.dcmread(p) for p in spec['sources']]
f0 = srcs[0]
sop = {'ct': '1.2.840.10008.5.1.4.1.1.2.1', 'mr': '1.2.840.10008.5.1.4.1.1.4.1', 'legacy-ct': '1.2.840.10008.5.1.4.1.1.2.2'}[spec.get('sop') or 'ct']
meta = FileMetaDataset()
meta.MediaStorageSOPClassUID = sop
meta.MediaStorageSOPInstanceUID = f0.SeriesInstanceUID + '.77'
meta.TransferSyntaxUID = ExplicitVRLittleEndian
ds = Dataset(); ds.file_meta = meta; ds.preamble = b'\0' * 128
ds.is_little_endian = True; ds.is_implicit_VR = False
ds.SOPClassUID = sop; ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
for key in ('PatientID', 'StudyInstanceUID', 'SeriesInstanceUID', 'StudyDescription', 'SeriesDescription', 'Modality', 'SeriesNumber'):
    if key in f0: setattr(ds, key, f0.get(key))
ds.ImageType = ['ORIGINAL', 'PRIMARY', 'AXIAL', 'NONE']
ds.NumberOfFrames = len(srcs)
for key in ('Rows', 'Columns', 'SamplesPerPixel', 'PhotometricInterpretation', 'BitsAllocated', 'BitsStored', 'HighBit', 'PixelRepresentation'):
    setattr(ds, key, f0.get(key))
if spec.get('topLevelWindow'):
    ds.WindowCenter, ds.WindowWidth = [str(v) for v in spec['topLevelWindow']]
shared = Dataset()
pm = Dataset(); pm.PixelSpacing = f0.PixelSpacing; pm.SliceThickness = f0.SliceThickness
shared.PixelMeasuresSequence = Sequence([pm])
if not spec.get('perFrameOrientation'):
    po = Dataset(); po.ImageOrientationPatient = f0.ImageOrientationPatient
    shared.PlaneOrientationSequence = Sequence([po])
rescale = spec.get('rescale')
if rescale == 'shared':
    pvt = Dataset(); pvt.RescaleIntercept = f0.RescaleIntercept; pvt.RescaleSlope = f0.RescaleSlope; pvt.RescaleType = 'US'
    shared.PixelValueTransformationSequence = Sequence([pvt])
if spec.get('voi'):
    voi = Dataset(); voi.WindowCenter, voi.WindowWidth = [str(v) for v in spec['voi']]
    shared.FrameVOILUTSequence = Sequence([voi])
ds.SharedFunctionalGroupsSequence = Sequence([shared])
frames = []
for i, s in enumerate(srcs):
    fg = Dataset()
    fc = Dataset(); fc.InStackPositionNumber = i + 1; fc.StackID = '1'
    fg.FrameContentSequence = Sequence([fc])
    pp = Dataset(); pp.ImagePositionPatient = s.ImagePositionPatient
    fg.PlanePositionSequence = Sequence([pp])
    if spec.get('perFrameOrientation'):
        po = Dataset(); po.ImageOrientationPatient = s.ImageOrientationPatient
        fg.PlaneOrientationSequence = Sequence([po])
    if isinstance(rescale, list):
        pvt = Dataset(); pvt.RescaleIntercept = str(rescale[i][0]); pvt.RescaleSlope = str(rescale[i][1]); pvt.RescaleType = 'US'
        fg.PixelValueTransformationSequence = Sequence([pvt])
    frames.append(fg)
ds.PerFrameFunctionalGroupsSequence = Sequence(frames)
stored = np.stack([s.pixel_array for s in srcs])
ds.PixelData = stored.astype(stored.dtype.newbyteorder('<')).tobytes()
try:
    ds.save_as(spec['out'], enforce_file_format=True)
except TypeError:
    ds.save_as(spec['out'], write_like_original=False)
`;

export function writeEnhanced(python: string, spec: EnhancedSpec): void {
  execFileSync(python, ['-c', SCRIPT], { input: JSON.stringify(spec), stdio: ['pipe', 'ignore', 'pipe'] });
}

/** What gdcminfo prints of a file's geometry and rescale, as numbers. */
export interface GdcmInfo {
  origin: number[];
  spacing: number[];
  cosines: number[];
  intercept: number;
  slope: number;
  dimensions: number[];
}

export function parseGdcmInfo(text: string): GdcmInfo {
  const list = (key: string): number[] => {
    const m = new RegExp(`^${key}:\\s*\\(([^)]*)\\)`, 'm').exec(text);
    if (!m) throw new Error(`gdcminfo printed no ${key}:\n${text}`);
    return m[1]!.split(',').map(Number);
  };
  return {
    origin: list('Origin'),
    spacing: list('Spacing'),
    cosines: list('DirectionCosines'),
    intercept: list('Rescale Intercept/Slope')[0]!,
    slope: list('Rescale Intercept/Slope')[1]!,
    dimensions: list('Dimensions'),
  };
}
