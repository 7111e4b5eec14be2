import type { Volume } from '../volume.js';

/** Why an image could not be read, in the workbench's own error codes. */
export class ImageReadError extends Error {
  constructor(
    readonly code: 'UNSUPPORTED_FORMAT' | 'FILE_READ_ERROR',
    message: string,
  ) {
    super(message);
    this.name = 'ImageReadError';
  }
}

/** Reads an image file; the format follows from the name (`.nrrd`, `.nhdr`, `.nii`, `.nii.gz`, `.mha`, `.mhd`). */
export async function readImageFile(_path: string): Promise<Volume> {
  throw new ImageReadError('UNSUPPORTED_FORMAT', 'image reading is being implemented');
}

/** Reads an uploaded image; `format` is the extension without its dot, e.g. `nrrd` or `nii.gz`. */
export function readImageBytes(_bytes: Uint8Array, _format: string): Volume {
  throw new ImageReadError('UNSUPPORTED_FORMAT', 'image reading is being implemented');
}
