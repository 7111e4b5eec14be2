import type { Volume } from '../volume.js';
import { writeMetaImage } from './metaimage-writer.js';
import { writeNifti } from './nifti-writer.js';
import { writeNrrd } from './nrrd-writer.js';
import type { WriteOptions } from './write-options.js';

export type { WriteOptions } from './write-options.js';

/** Formats a volume can be written in; NRRD is what the workbench serves for downloads. */
export type WritableFormat = 'nrrd' | 'nii' | 'nii.gz' | 'mha';

/** Serialises a volume: NRRD (gzip, LPS, MITK's multilabel keys for labels), NIfTI-1 (optionally gzipped) or MetaImage. */
export function writeImageBytes(volume: Volume, format: WritableFormat, options: WriteOptions = {}): Uint8Array {
  switch (format) {
    case 'nrrd':
      return writeNrrd(volume, options);
    case 'nii':
      return writeNifti(volume, false, options);
    case 'nii.gz':
      return writeNifti(volume, true, options);
    case 'mha':
      return writeMetaImage(volume);
  }
}
