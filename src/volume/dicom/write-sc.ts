/**
 * Writes a capture (a screenshot or figure, RGBA) as a DICOM Secondary Capture image that joins
 * the patient and study of the series it was made from, so an archive files it next to them.
 * UIDs derive from what the capture came from: a rerun replaces the object instead of adding a
 * copy. The data set is built here; dcmjs encodes it (Explicit VR Little Endian).
 */
import { createHash } from 'node:crypto';
import type { DataSet as ParsedDataSet } from 'dicom-parser';
import { raw, readHeader } from './data-set.js';
import { fail } from './errors.js';
import { encodePart10, SECONDARY_CAPTURE, type DataSet } from './write.js';

/** The patient and study an object derived from a source series joins (Type 2 attributes may be empty strings). */
export interface SourceStudy {
  patientId: string;
  patientName: string;
  patientBirthDate: string;
  patientSex: string;
  studyInstanceUid: string;
  studyDate: string;
  studyTime: string;
  studyId: string;
  accessionNumber: string;
  referringPhysicianName: string;
  studyDescription: string;
  /** The source series, referenced from the new series (ReferencedSeriesSequence / SourceImageSequence where the IOD allows). */
  seriesInstanceUid?: string;
  frameOfReferenceUid?: string;
  /** SOP class/instance of source images to reference, optional. */
  referencedInstances?: { sopClassUid: string; sopInstanceUid: string }[];
}

export interface SecondaryCaptureOptions {
  study: SourceStudy;
  seriesInstanceUid: string;
  sopInstanceUid: string;
  seriesNumber: number;
  instanceNumber: number;
  seriesDescription: string;
  /** Content date/time (YYYYMMDD, HHMMSS); callers pass fixed values so reruns give equal bytes. */
  contentDate: string;
  contentTime: string;
  /** DerivationDescription or ImageComments text, e.g. the capture's file name. */
  description?: string;
}

export interface RgbaImage {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel, rows top to bottom. */
  data: Uint8Array;
}

/**
 * A UID under 2.25 derived from the parts (source UIDs, playbook, output name), so a rerun makes
 * the same UID. The scheme is `seededUid`'s: `derivedUid(seed, role)` equals `seededUid(seed, role)`.
 */
export function derivedUid(...parts: string[]): string {
  const digest = createHash('sha256').update(parts.join('\0')).digest();
  return `2.25.${BigInt(`0x${digest.subarray(0, 16).toString('hex')}`).toString()}`;
}

/** One Secondary Capture Image Storage instance (1.2.840.10008.5.1.4.1.1.7), RGB 8-bit, PlanarConfiguration 0, pixels exactly the RGBA image's RGB. */
export function secondaryCapture(image: RgbaImage, options: SecondaryCaptureOptions): Uint8Array {
  const { width, height, data } = image;
  const side = (n: number): boolean => Number.isInteger(n) && n >= 1 && n <= 65535;
  if (!side(width) || !side(height))
    throw new RangeError(`a secondary capture needs a size of 1 to 65535 pixels a side, not ${width}x${height}`);
  if (data.length !== width * height * 4)
    throw new RangeError(`an RGBA image of ${width}x${height} has ${width * height * 4} bytes, not ${data.length}`);
  // Alpha is dropped, not composited: the stored pixels are the capture's colours as they are.
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0, o = 0; i < data.length; i += 4, o += 3) {
    rgb[o] = data[i]!;
    rgb[o + 1] = data[i + 1]!;
    rgb[o + 2] = data[i + 2]!;
  }
  const { study } = options;
  const texts = [
    study.patientName,
    study.patientId,
    study.studyDescription,
    study.referringPhysicianName,
    study.accessionNumber,
    study.studyId,
    options.seriesDescription,
    options.description ?? '',
  ];
  const dataset: DataSet = {
    // dcmjs writes text as UTF-8; ASCII text is declared as the Latin-1 most readers assume.
    SpecificCharacterSet: texts.every((t) => /^[\x20-\x7e]*$/.test(t)) ? 'ISO_IR 100' : 'ISO_IR 192',
    ImageType: ['DERIVED', 'SECONDARY'],
    SOPClassUID: SECONDARY_CAPTURE,
    SOPInstanceUID: options.sopInstanceUid,
    StudyDate: study.studyDate,
    SeriesDate: options.contentDate,
    ContentDate: options.contentDate,
    StudyTime: study.studyTime,
    SeriesTime: options.contentTime,
    ContentTime: options.contentTime,
    AccessionNumber: study.accessionNumber,
    Modality: 'OT',
    // Made on a workstation from images already in the archive.
    ConversionType: 'WSD',
    ReferringPhysicianName: study.referringPhysicianName,
    StudyDescription: study.studyDescription || undefined,
    SeriesDescription: options.seriesDescription || undefined,
    PatientName: study.patientName,
    PatientID: study.patientId,
    PatientBirthDate: study.patientBirthDate,
    PatientSex: study.patientSex,
    SecondaryCaptureDeviceManufacturer: 'wbplay',
    StudyInstanceUID: study.studyInstanceUid,
    SeriesInstanceUID: options.seriesInstanceUid,
    StudyID: study.studyId,
    SeriesNumber: options.seriesNumber,
    InstanceNumber: options.instanceNumber,
    // A view of the patient rendered on screen: its rows and columns follow no patient axis.
    PatientOrientation: '',
    // The body part is unknown here, so whether it is paired is too.
    Laterality: '',
    ...references(study),
    DerivationDescription: options.description || undefined,
    SamplesPerPixel: 3,
    PhotometricInterpretation: 'RGB',
    PlanarConfiguration: 0,
    Rows: height,
    Columns: width,
    BitsAllocated: 8,
    BitsStored: 8,
    HighBit: 7,
    PixelRepresentation: 0,
    LossyImageCompression: '00',
    PixelData: [rgb.buffer],
    _vrMap: { PixelData: 'OB' },
  };
  return encodePart10(dataset);
}

/**
 * The source as the SC IOD lets it be referenced: its images by SourceImageSequence (with the
 * Common Instance Reference module naming their series), and its series as a related one. The
 * frame of reference is not taken over: a rendered view's pixels are not in the patient's frame.
 */
function references(study: SourceStudy): DataSet {
  const instances = study.referencedInstances ?? [];
  const out: DataSet = {};
  if (study.seriesInstanceUid)
    out.RelatedSeriesSequence = [
      {
        StudyInstanceUID: study.studyInstanceUid,
        SeriesInstanceUID: study.seriesInstanceUid,
        PurposeOfReferenceCodeSequence: [],
      },
    ];
  if (instances.length === 0) return out;
  out.SourceImageSequence = instances.map((i) => ({
    ReferencedSOPClassUID: i.sopClassUid,
    ReferencedSOPInstanceUID: i.sopInstanceUid,
  }));
  if (study.seriesInstanceUid)
    out.ReferencedSeriesSequence = [
      {
        SeriesInstanceUID: study.seriesInstanceUid,
        ReferencedInstanceSequence: instances.map((i) => ({
          ReferencedSOPClassUID: i.sopClassUid,
          ReferencedSOPInstanceUID: i.sopInstanceUid,
        })),
      },
    ];
  return out;
}

/** The SourceStudy of a DICOM file (its header read with the project's reader), referencing that file's instance. */
export async function sourceStudyOf(file: string): Promise<SourceStudy> {
  const { ds } = await readHeader(file);
  const utf8 = /ISO_IR 192/.test(raw(ds, 'x00080005') ?? '');
  const text = (tag: string): string => decoded(ds, tag, utf8) ?? '';
  const studyInstanceUid = text('x0020000d');
  if (studyInstanceUid === '') fail('CORRUPT', file, 'has no StudyInstanceUID (0020,000D), so no study to join');
  const seriesInstanceUid = text('x0020000e');
  const frameOfReferenceUid = text('x00200052');
  const sopClassUid = text('x00080016');
  const sopInstanceUid = text('x00080018');
  return {
    patientId: text('x00100020'),
    patientName: text('x00100010'),
    patientBirthDate: text('x00100030'),
    patientSex: text('x00100040'),
    studyInstanceUid,
    studyDate: text('x00080020'),
    studyTime: text('x00080030'),
    studyId: text('x00200010'),
    accessionNumber: text('x00080050'),
    referringPhysicianName: text('x00080090'),
    studyDescription: text('x00081030'),
    ...(seriesInstanceUid ? { seriesInstanceUid } : {}),
    ...(frameOfReferenceUid ? { frameOfReferenceUid } : {}),
    ...(sopClassUid && sopInstanceUid ? { referencedInstances: [{ sopClassUid, sopInstanceUid }] } : {}),
  };
}

/**
 * A text element's whole value: UTF-8 when the file says ISO_IR 192, else byte by byte as
 * dicom-parser reads it (Latin-1, which ASCII is part of).
 */
function decoded(ds: ParsedDataSet, tag: string, utf8: boolean): string | undefined {
  const el = ds.elements[tag];
  if (!utf8 || el === undefined || el.length === 0 || el.length === 0xffffffff) return raw(ds, tag);
  const bytes = ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length);
  return new TextDecoder('utf-8').decode(bytes).replace(/\0+$/, '').trim();
}
