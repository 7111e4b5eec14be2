import { execFileSync } from 'node:child_process';

/**
 * Synthetic DICOM series written by pydicom (the field's own writer), for the sorting,
 * geometry and property rules. Each slice's pixels are `value + x + 2·y` so a test can tell
 * slices and rows apart; everything else is given per slice.
 */
export interface SynthSlice {
  name: string;
  position?: [number, number, number];
  orientation?: [number, number, number, number, number, number];
  series?: string;
  instance?: number;
  rows?: number;
  columns?: number;
  spacing?: [number, number];
  thickness?: number;
  value?: number;
  windowCenter?: string;
  windowWidth?: string;
  studyDescription?: string;
  seriesDescription?: string;
  photometric?: 'MONOCHROME1' | 'MONOCHROME2';
  slope?: number;
  intercept?: number;
  modality?: string;
  transferSyntax?: string;
  acquisitionDate?: string;
  acquisitionTime?: string;
  triggerTime?: string;
  /** Leaves the file this many bytes short. */
  truncate?: number;
}

const SCRIPT = String.raw`
import json, sys, os
import numpy as np
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.uid import ExplicitVRLittleEndian, UID
spec = json.load(sys.stdin)
for s in spec['slices']:
    rows = s.get('rows', 8); cols = s.get('columns', 6)
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.2'
    meta.MediaStorageSOPInstanceUID = '1.2.826.0.1.3680043.8.498.' + str(abs(hash(s['name'])) % 10**12)
    ts = s.get('transferSyntax', ExplicitVRLittleEndian)
    if not UID(ts).is_transfer_syntax:
        # An older pydicom that does not know the syntax (HTJ2K) learns its name here.
        from pydicom._uid_dict import UID_dictionary
        UID_dictionary[ts] = ('Test syntax', 'Transfer Syntax', '', '', '')
    meta.TransferSyntaxUID = UID(ts)
    ds = Dataset(); ds.file_meta = meta
    ds.SOPClassUID = meta.MediaStorageSOPClassUID; ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.Modality = s.get('modality', 'CT'); ds.PatientID = 'SYNTH'
    ds.StudyInstanceUID = '1.2.826.0.1.3680043.8.498.1'
    ds.SeriesInstanceUID = s.get('series', '1.2.826.0.1.3680043.8.498.2')
    for key, tag in (('studyDescription', 'StudyDescription'), ('seriesDescription', 'SeriesDescription'), ('windowCenter', 'WindowCenter'), ('windowWidth', 'WindowWidth'), ('acquisitionDate', 'AcquisitionDate'), ('acquisitionTime', 'AcquisitionTime'), ('triggerTime', 'TriggerTime')):
        if key in s: setattr(ds, tag, s[key])
    if 'instance' in s: ds.InstanceNumber = s['instance']
    if 'position' in s: ds.ImagePositionPatient = [str(v) for v in s['position']]
    ds.ImageOrientationPatient = [str(v) for v in s.get('orientation', [1, 0, 0, 0, 1, 0])]
    ds.PixelSpacing = [str(v) for v in s.get('spacing', [0.5, 0.75])]
    ds.SliceThickness = str(s.get('thickness', 2))
    ds.Rows = rows; ds.Columns = cols
    ds.SamplesPerPixel = 1; ds.PhotometricInterpretation = s.get('photometric', 'MONOCHROME2')
    ds.BitsAllocated = 16; ds.BitsStored = 16; ds.HighBit = 15; ds.PixelRepresentation = 1
    ds.RescaleSlope = str(s.get('slope', 1)); ds.RescaleIntercept = str(s.get('intercept', 0))
    y, x = np.mgrid[0:rows, 0:cols]
    ds.PixelData = (s.get('value', 0) + x + 2 * y).astype('<i2').tobytes()
    if UID(ts).is_compressed:
        # One fragment of the raw bytes: enough for a reader to meet the syntax.
        from pydicom.encaps import encapsulate
        ds.PixelData = encapsulate([ds.PixelData])
        ds['PixelData'].is_undefined_length = True
        ds['PixelData'].VR = 'OB'
    path = os.path.join(spec['dir'], s['name'])
    ds.is_little_endian = True; ds.is_implicit_VR = ts == '1.2.840.10008.1.2'
    ds.preamble = b'\0' * 128
    # Written as given (also a transfer syntax this pydicom does not know, e.g. HTJ2K).
    try:
        ds.save_as(path, enforce_file_format=True)
    except (TypeError, ValueError):
        ds.save_as(path, write_like_original=True)
    if s.get('truncate'):
        size = os.path.getsize(path)
        with open(path, 'r+b') as f: f.truncate(size - s['truncate'])
`;

export function writeSeries(python: string, dir: string, slices: SynthSlice[]): void {
  execFileSync(python, ['-c', SCRIPT], { input: JSON.stringify({ dir, slices }), stdio: ['pipe', 'ignore', 'pipe'] });
}

/** Slices of an axial series: `count` positions `gap` apart along z from `z0`. */
export function axial(
  count: number,
  options: Partial<SynthSlice> & { gap?: number; z0?: number; prefix?: string } = {},
): SynthSlice[] {
  const { gap = 2, z0 = 10, prefix = 's', ...rest } = options;
  return Array.from({ length: count }, (_, i) => ({
    name: `${prefix}${i}`,
    position: [-5, -7, z0 + i * gap] as [number, number, number],
    instance: i + 1,
    value: 100 * (i + 1),
    ...rest,
  }));
}
