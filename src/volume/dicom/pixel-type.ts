import { fail } from './errors.js';
import type { SliceHeader } from './slice-header.js';

/**
 * Which pixel layouts MITK loads at all: ITK's GDCMImageIO calls three samples RGB only for
 * RGB, PALETTE COLOR (expanded), YBR_ICT/YBR_RCT, and 8-bit YBR_FULL(_422) that it converts;
 * anything else is an ITK VECTOR pixel, which `ITKDICOMSeriesReaderHelper::Load` refuses with
 * "Unsupported DICOM pixel type". The first file of a block decides, as there.
 */
export function checkPixelType(h: SliceHeader): void {
  if (h.samples === 1) return;
  const pi = h.photometric;
  const rgb =
    h.samples === 3 &&
    (pi === 'RGB' ||
      pi === 'YBR_ICT' ||
      pi === 'YBR_RCT' ||
      ((pi === 'YBR_FULL' || pi === 'YBR_FULL_422') && h.bitsAllocated === 8));
  if (!rgb)
    fail(
      'UNSUPPORTED_PIXEL_DATA',
      h.file,
      `has ${h.samples} samples per pixel as ${pi || 'no photometric interpretation'} (${h.bitsAllocated} bits), which MITK refuses as "Unsupported DICOM pixel type"; convert it to RGB first`,
    );
}
