import type { DataSet } from 'dicom-parser';
import { fail } from './errors.js';
import { numbers, raw, str, us, type ParsedFile } from './data-set.js';
import { groupRescale, rescaleFromGroups } from './multi-frame.js';

/** What the sorting, geometry and value rules need from one file, read from its header. */
export interface SliceHeader {
  file: string;
  ds: DataSet;
  transferSyntax: string;
  rows: number;
  columns: number;
  frames: number;
  bitsAllocated: number;
  bitsStored: number;
  signed: boolean;
  samples: number;
  photometric: string;
  planar: number;
  /** ImagePositionPatient as numbers and as the raw string MITK compares. */
  position?: [number, number, number];
  positionText?: string;
  /** ImageOrientationPatient: row direction then column direction. */
  orientation?: [number, number, number, number, number, number];
  slope: number;
  intercept: number;
  modality?: string;
  sopClassUid?: string;
  seriesUid?: string;
  instanceNumber?: number;
}

export const TAG = {
  modality: 'x00080060',
  sopClassUid: 'x00080016',
  sopInstanceUid: 'x00080018',
  seriesUid: 'x0020000e',
  studyDescription: 'x00081030',
  seriesDescription: 'x0008103e',
  instanceNumber: 'x00200013',
  sliceLocation: 'x00201041',
  acquisitionNumber: 'x00200012',
  acquisitionTime: 'x00080032',
  acquisitionDate: 'x00080022',
  triggerTime: 'x00181060',
  position: 'x00200032',
  orientation: 'x00200037',
  pixelSpacing: 'x00280030',
  imagerPixelSpacing: 'x00181164',
  sliceThickness: 'x00180050',
  spacingBetweenSlices: 'x00180088',
  rows: 'x00280010',
  columns: 'x00280011',
  frames: 'x00280008',
  windowCenter: 'x00281050',
  windowWidth: 'x00281051',
  photometric: 'x00280004',
  pixelData: 'x7fe00010',
} as const;

export function sliceHeader(parsed: ParsedFile): SliceHeader {
  const { ds, file } = parsed;
  const rows = us(ds, TAG.rows);
  const columns = us(ds, TAG.columns);
  if (rows === undefined || columns === undefined || ds.elements[TAG.pixelData] === undefined)
    fail('NO_IMAGE', file, `holds no image (${describeObject(ds)})`);
  const bitsAllocated = us(ds, 'x00280100') ?? 16;
  const position = numbers(ds, TAG.position);
  // ITK forces GDCM to apply a rescale (`SetForceRescaleInterceptSlope`): the top-level one,
  // unless GDCM reads this class's from its functional groups and finds one there.
  const rescale = (rescaleFromGroups(ds) ? groupRescale(ds) : undefined) ?? {
    slope: numbers(ds, 'x00281053')?.[0] ?? 1,
    intercept: numbers(ds, 'x00281052')?.[0] ?? 0,
  };
  const orientation = numbers(ds, TAG.orientation);
  return {
    file,
    ds,
    transferSyntax: parsed.transferSyntax,
    rows,
    columns,
    frames: Math.max(1, Math.trunc(numbers(ds, TAG.frames)?.[0] ?? 1)),
    bitsAllocated,
    bitsStored: us(ds, 'x00280101') ?? bitsAllocated,
    signed: us(ds, 'x00280103') === 1,
    samples: us(ds, 'x00280002') ?? 1,
    photometric: (str(ds, TAG.photometric) ?? 'MONOCHROME2').toUpperCase(),
    planar: us(ds, 'x00280006') ?? 0,
    ...(position?.length === 3
      ? { position: position as [number, number, number], positionText: raw(ds, TAG.position)! }
      : {}),
    ...(orientation?.length === 6 ? { orientation: orientation as SliceHeader['orientation'] & object } : {}),
    slope: rescale.slope,
    intercept: rescale.intercept,
    modality: str(ds, TAG.modality),
    sopClassUid: str(ds, TAG.sopClassUid),
    seriesUid: str(ds, TAG.seriesUid),
    instanceNumber: numbers(ds, TAG.instanceNumber)?.[0],
  };
}

function describeObject(ds: DataSet): string {
  const modality = str(ds, TAG.modality);
  const sop = str(ds, TAG.sopClassUid);
  return [modality && `modality ${modality}`, sop && `SOP class ${sop}`].filter(Boolean).join(', ') || 'no pixel data';
}
