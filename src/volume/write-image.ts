import type { Volume } from './volume.js';
import { writeMetaImage } from './metaimage-writer.js';
import { writeNifti } from './nifti-writer.js';
import { writeNrrd } from './nrrd-writer.js';
import type { WriteOptions } from './write-options.js';

export type { WriteOptions } from './write-options.js';

/** Formats a volume can be written in; NRRD is what the workbench serves for downloads. */
export type WritableFormat = 'nrrd' | 'nii' | 'nii.gz' | 'mha';

/**
 * Serialises a volume: NRRD (gzip, LPS, a segmentation as MITK writes it), NIfTI-1 (optionally
 * gzipped) or MetaImage. The last two have no room for label groups: a segmentation of one
 * group is written as its plain label image, one of several groups cannot be written; neither
 * can a colour image, which only NRRD holds as RGB pixels.
 */
export function writeImageBytes(volume: Volume, format: WritableFormat, options: WriteOptions = {}): Uint8Array {
  const groups = volume.segmentation?.groups.length ?? 0;
  if (format !== 'nrrd' && groups > 1) {
    throw new Error(`a segmentation of ${groups} label groups can only be written as NRRD, not as .${format}`);
  }
  // These writers hold one scalar a voxel: the colour would be lost to its luminance.
  if (format !== 'nrrd' && volume.rgb !== undefined && volume.segmentation === undefined) {
    const bits = volume.rgb[0] instanceof Uint16Array ? 16 : 8;
    throw new Error(`a ${bits}-bit RGB colour image can only be written as NRRD, not as .${format}`);
  }
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
