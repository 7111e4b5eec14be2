import { basename } from 'node:path';
import type { DicomRead } from './index.js';
import { fail } from './errors.js';
import type { SliceHeader } from './slice-header.js';

const SEG_SOP_CLASS = '1.2.840.10008.5.1.4.1.1.66.4';

/** MITK's DICOM SEG mime type: `.dcm`, Modality SEG and the Segmentation Storage SOP class. */
export function isSegmentationFile(h: SliceHeader): boolean {
  return h.modality === 'SEG' && h.sopClassUid === SEG_SOP_CLASS && /\.dcm$/i.test(h.file);
}

export async function readSegmentation(file: string, _bytes: Uint8Array): Promise<DicomRead> {
  fail('NO_IMAGE', file, `is a DICOM SEG; reading segmentations is not implemented yet (${basename(file)})`);
}
