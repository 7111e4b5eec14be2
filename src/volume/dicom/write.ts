/**
 * Writes a volume as a DICOM series: one file per slice, Explicit VR Little Endian, with the
 * tags a reader of a series needs (UIDs, geometry, pixel module, rescale, window). The data set
 * is built here; its part-10 encoding is dcmjs's. UIDs derive from a seed, so the same call
 * writes the same bytes: test fixtures and demo data stay reproducible.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Volume, Vec3 } from '../volume.js';
import { indexToWorld } from '../volume.js';

/**
 * The part of dcmjs used here. dcmjs ships no type declarations; the narrow interface keeps the
 * untyped surface in one place.
 */
interface Dcmjs {
  data: {
    DicomDict: new (meta: Record<string, unknown>) => { dict: Record<string, unknown>; write(): ArrayBuffer };
    DicomMetaDictionary: { denaturalizeDataset(dataset: Record<string, unknown>): Record<string, unknown> };
    BitArray: { pack(pixels: Uint8Array): Uint8Array };
    Colors: { rgb2DICOMLAB(rgb: readonly number[]): number[] };
  };
}

export const dcmjs = createRequire(import.meta.url)('dcmjs') as Dcmjs;

export const EXPLICIT_VR_LITTLE_ENDIAN = '1.2.840.10008.1.2.1';

/** A DICOM data set in dcmjs's natural form: keywords to values, sequences as arrays of data sets. */
export type DataSet = Record<string, unknown>;

/** Storage SOP classes by modality; other modalities are written as secondary capture. */
const SOP_CLASSES: Record<string, string> = {
  CT: '1.2.840.10008.5.1.4.1.1.2',
  MR: '1.2.840.10008.5.1.4.1.1.4',
  PT: '1.2.840.10008.5.1.4.1.1.128',
};
export const SECONDARY_CAPTURE = '1.2.840.10008.5.1.4.1.1.7';

export interface DicomSeriesOptions {
  /** Every UID derives from it (with the series number), so equal seeds give equal files. */
  seed?: string;
  patientId?: string;
  patientName?: string;
  studyDescription?: string;
  seriesDescription?: string;
  modality?: string;
  seriesNumber?: number;
  /** Window tags; left out when absent, so a reader falls back to its automatic window. */
  window?: { center: number; width: number };
  /**
   * Stored = (value − intercept) / slope. Integer volumes default to slope 1, intercept 0;
   * float volumes to a slope and intercept that spread their range over 16 bits.
   */
  rescale?: { slope: number; intercept: number };
  /**
   * File names: `instance` (IM00001.dcm …, the default), `bare` (00001, no extension),
   * `shuffled` (names that do not sort in slice order, no extension), or a function.
   */
  naming?: 'instance' | 'bare' | 'shuffled' | ((slice: number, count: number) => string);
  /** Tags set on every slice after the defaults (a keyword to a value; `undefined` removes it). */
  tags?: DataSet;
  /** Tags for one slice, after `tags`: per-slice positions, instance numbers, gaps. */
  sliceTags?: (slice: number) => DataSet;
}

export interface DicomFile {
  name: string;
  bytes: Uint8Array;
}

/** The identity a written series shares with objects derived from it (a SEG refers to it). */
export interface SeriesIdentity {
  patientId: string;
  patientName: string;
  studyInstanceUid: string;
  studyDescription: string;
  frameOfReferenceUid: string;
  seriesInstanceUid: string;
  sopClassUid: string;
  sopInstanceUids: string[];
}

/**
 * A UID under the 2.25 root (a UUID's integer form, ISO/IEC 9834-8), from a hash of the seed and
 * a role: at most 44 characters, well inside the 64 a UID may have.
 */
export function seededUid(seed: string, role: string): string {
  const digest = createHash('sha256').update(`${seed}\0${role}`).digest();
  return `2.25.${BigInt(`0x${digest.subarray(0, 16).toString('hex')}`).toString()}`;
}

/**
 * A number as a decimal string (DS) can hold it: at most 16 characters, so the most significant
 * digits that fit (12 at most, which also drops the float noise of computed positions).
 */
export function ds(n: number): number {
  for (let digits = 12; digits > 1; digits--) {
    const r = Number(n.toPrecision(digits));
    if (String(r).length <= 16) return Object.is(r, -0) ? 0 : r;
  }
  return 0;
}

/** The series identity (UIDs included) the options give, without writing anything. */
export function seriesIdentity(volume: Volume, options: DicomSeriesOptions = {}): SeriesIdentity {
  const seed = options.seed ?? 'wbplay';
  const seriesNumber = options.seriesNumber ?? 1;
  const series = `series ${seriesNumber} ${options.seriesDescription ?? ''}`;
  return {
    patientId: options.patientId ?? 'ANON0001',
    patientName: options.patientName ?? 'Anonymous^Patient',
    studyInstanceUid: seededUid(seed, 'study'),
    studyDescription: options.studyDescription ?? 'Study',
    frameOfReferenceUid: seededUid(seed, 'frame of reference'),
    seriesInstanceUid: seededUid(seed, series),
    sopClassUid: SOP_CLASSES[options.modality ?? 'CT'] ?? SECONDARY_CAPTURE,
    sopInstanceUids: Array.from({ length: volume.dims[2] }, (_, k) => seededUid(seed, `${series} slice ${k}`)),
  };
}

/** One DICOM file per slice of the volume's first time step, in slice order. */
export function dicomSeries(volume: Volume, options: DicomSeriesOptions = {}): DicomFile[] {
  const id = seriesIdentity(volume, options);
  const [columns, rows, slices] = volume.dims;
  const rescale = options.rescale ?? defaultRescale(volume, id.sopClassUid === SOP_CLASSES.PT);
  // Stored values from the slope and intercept as written, so a reader gets back what we meant.
  const slope = ds(rescale.slope);
  const intercept = ds(rescale.intercept);
  const frame = volume.frames[0] ?? new Float32Array(columns * rows * slices);
  let storedMin = Infinity;
  let storedMax = -Infinity;
  const stored = new Float64Array(frame.length);
  for (let i = 0; i < frame.length; i++) {
    const s = Math.round((frame[i]! - intercept) / slope);
    stored[i] = s;
    if (s < storedMin) storedMin = s;
    if (s > storedMax) storedMax = s;
  }
  const signed = storedMin < 0;
  // CT, MR and PET images have 16 bits allocated by their IODs; only secondary capture takes 8.
  const bits =
    id.sopClassUid === SECONDARY_CAPTURE && volume.componentType === 'uint8' && !signed && storedMax <= 255 ? 8 : 16;
  const limit: [number, number] = bits === 8 ? [0, 255] : signed ? [-32768, 32767] : [0, 65535];
  if (storedMin < limit[0] || storedMax > limit[1]) {
    throw new RangeError(
      `stored values ${storedMin}..${storedMax} do not fit ${bits} bits; give a rescale slope and intercept`,
    );
  }
  const d = volume.direction;
  const orientation = [d[0], d[3], d[6], d[1], d[4], d[7]].map(ds);
  const normal: Vec3 = [d[2], d[5], d[8]];
  const modality = options.modality ?? 'CT';
  const base: DataSet = {
    SpecificCharacterSet: 'ISO_IR 100',
    ImageType: ['ORIGINAL', 'PRIMARY', 'AXIAL'],
    SOPClassUID: id.sopClassUid,
    StudyDate: '20240101',
    SeriesDate: '20240101',
    StudyTime: '120000',
    AccessionNumber: '',
    Modality: modality,
    Manufacturer: 'wbplay',
    ReferringPhysicianName: '',
    StudyDescription: id.studyDescription,
    SeriesDescription: options.seriesDescription ?? `${modality} series`,
    PatientName: id.patientName,
    PatientID: id.patientId,
    PatientBirthDate: '',
    PatientSex: 'O',
    SliceThickness: ds(volume.spacing[2]),
    StudyInstanceUID: id.studyInstanceUid,
    SeriesInstanceUID: id.seriesInstanceUid,
    StudyID: '1',
    SeriesNumber: options.seriesNumber ?? 1,
    ImageOrientationPatient: orientation,
    FrameOfReferenceUID: id.frameOfReferenceUid,
    PositionReferenceIndicator: '',
    SamplesPerPixel: 1,
    PhotometricInterpretation: 'MONOCHROME2',
    Rows: rows,
    Columns: columns,
    // Row spacing (between rows, along y) first, then column spacing: the order MITK reads.
    PixelSpacing: [ds(volume.spacing[1]), ds(volume.spacing[0])],
    BitsAllocated: bits,
    BitsStored: bits,
    HighBit: bits - 1,
    PixelRepresentation: signed ? 1 : 0,
    RescaleIntercept: intercept,
    RescaleSlope: slope,
    RescaleType: modality === 'CT' ? 'HU' : 'US',
    ...iodModules(id.sopClassUid, slices, orientation),
  };
  if (options.window) {
    base.WindowCenter = ds(options.window.center);
    base.WindowWidth = ds(options.window.width);
  }
  const names = fileNames(slices, options);
  const perSlice = columns * rows;
  const files: DicomFile[] = [];
  for (let k = 0; k < slices; k++) {
    const position = indexToWorld(volume, 0, 0, k).map(ds) as Vec3;
    const pixels =
      bits === 8 ? new Uint8Array(perSlice) : signed ? new Int16Array(perSlice) : new Uint16Array(perSlice);
    pixels.set(stored.subarray(k * perSlice, (k + 1) * perSlice));
    const dataset: DataSet = {
      ...base,
      SOPInstanceUID: id.sopInstanceUids[k],
      InstanceNumber: k + 1,
      ImagePositionPatient: position,
      SliceLocation: ds(position[0] * normal[0] + position[1] * normal[1] + position[2] * normal[2]),
      ...(id.sopClassUid === SOP_CLASSES.PT ? { ImageIndex: k + 1 } : {}),
      ...options.tags,
      ...options.sliceTags?.(k),
      PixelData: [pixels.buffer],
      _vrMap: { PixelData: bits === 8 ? 'OB' : 'OW' },
    };
    // Laterality is asked for unless a body part says which region (paired or not) this is;
    // empty says it is unknown.
    if (!('Laterality' in dataset) && dataset.BodyPartExamined === undefined) dataset.Laterality = '';
    files.push({ name: names[k]!, bytes: encodePart10(dataset) });
  }
  return files;
}

/**
 * What the SOP class's IOD asks beyond the modules every series here shares. Type 1 attributes
 * get a value true of a computed volume; Type 2 ones are present and empty, since nothing is
 * known of an acquisition that never happened. dciodvfy then finds every module whole.
 */
function iodModules(sopClassUid: string, slices: number, orientation: number[]): DataSet {
  if (sopClassUid === SOP_CLASSES.CT) return { PatientPosition: '', KVP: '', AcquisitionNumber: '' };
  if (sopClassUid === SOP_CLASSES.MR)
    return {
      PatientPosition: '',
      // Research mode and no variant: the volume follows no pulse sequence.
      ScanningSequence: 'RM',
      SequenceVariant: 'NONE',
      ScanOptions: '',
      MRAcquisitionType: '',
      RepetitionTime: '',
      EchoTime: '',
      EchoTrainLength: '',
    };
  if (sopClassUid === SOP_CLASSES.PT)
    return {
      SeriesTime: '120000',
      // Values of unknown meaning: unitless, uncorrected, one static image per slice.
      Units: 'NONE',
      CountsSource: 'EMISSION',
      SeriesType: ['STATIC', 'IMAGE'],
      NumberOfSlices: slices,
      CorrectedImage: '',
      DecayCorrection: 'NONE',
      CollimatorType: '',
      RadiopharmaceuticalInformationSequence: [],
      PatientOrientationCodeSequence: [],
      PatientGantryRelationshipCodeSequence: [],
      FrameReferenceTime: 0,
      AcquisitionDate: '',
      AcquisitionTime: '',
      ActualFrameDuration: '',
      RescaleType: undefined,
    };
  // Secondary capture has no image plane module: the orientation is also said in its own terms.
  return { ConversionType: 'WSD', PatientOrientation: patientOrientation(orientation) };
}

/** Patient Orientation of the row and column directions: L/R, P/A, H/F, strongest axis first. */
function patientOrientation(orientation: number[]): string[] {
  const letters = ['LR', 'PA', 'HF'];
  return [orientation.slice(0, 3), orientation.slice(3, 6)].map((axis) =>
    axis
      .map((c, a) => ({ c, letter: letters[a]![c >= 0 ? 0 : 1]! }))
      .filter(({ c }) => Math.abs(c) > 1e-3)
      .sort((p, q) => Math.abs(q.c) - Math.abs(p.c))
      .map(({ letter }) => letter)
      .join(''),
  );
}

/** Writes the series into `dir` (created if needed) and returns the file paths in slice order. */
export async function writeDicomSeries(
  volume: Volume,
  dir: string,
  options: DicomSeriesOptions = {},
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files = dicomSeries(volume, options);
  for (const f of files) await writeFile(join(dir, f.name), f.bytes);
  return files.map((f) => join(dir, f.name));
}

/** Part 10 bytes of a data set: preamble, `DICM`, file meta (group 2) and the data set. */
export function encodePart10(dataset: DataSet): Uint8Array {
  const clean = Object.fromEntries(Object.entries(dataset).filter(([, v]) => v !== undefined));
  const meta = {
    FileMetaInformationVersion: new Uint8Array([0, 1]).buffer,
    MediaStorageSOPClassUID: clean.SOPClassUID,
    MediaStorageSOPInstanceUID: clean.SOPInstanceUID,
    TransferSyntaxUID: EXPLICIT_VR_LITTLE_ENDIAN,
    ImplementationClassUID: seededUid('wbplay', 'implementation class'),
    ImplementationVersionName: 'WBPLAY',
  };
  const { DicomDict, DicomMetaDictionary } = dcmjs.data;
  const dict = new DicomDict(DicomMetaDictionary.denaturalizeDataset(meta));
  dict.dict = DicomMetaDictionary.denaturalizeDataset(clean);
  return new Uint8Array(dict.write());
}

/** `zeroIntercept`: the PET image module allows no intercept, so only the slope scales. */
function defaultRescale(volume: Volume, zeroIntercept: boolean): { slope: number; intercept: number } {
  const [min, max] = volume.range;
  const integral = volume.frames.every((f) => f.every((v) => Number.isInteger(v)));
  if (zeroIntercept) {
    if (integral && min >= -32768 && max <= (min < 0 ? 32767 : 65535)) return { slope: 1, intercept: 0 };
    const top = min < 0 ? Math.max(-min, max) / 32767 : max / 65535;
    return { slope: top > 0 ? top : 1, intercept: 0 };
  }
  if (integral && min >= -32768 && max <= 65535 && max - min <= 65535) {
    // Values that fit 16 bits are stored as they are (signed when any is negative).
    return min < 0 && max > 32767 ? { slope: 1, intercept: min } : { slope: 1, intercept: 0 };
  }
  const slope = max > min ? (max - min) / 65535 : 1;
  return { slope, intercept: min };
}

function fileNames(count: number, options: DicomSeriesOptions): string[] {
  const naming = options.naming ?? 'instance';
  const pad = (n: number): string => String(n).padStart(5, '0');
  if (typeof naming === 'function') return Array.from({ length: count }, (_, k) => naming(k, count));
  if (naming === 'bare') return Array.from({ length: count }, (_, k) => pad(k + 1));
  if (naming === 'instance') return Array.from({ length: count }, (_, k) => `IM${pad(k + 1)}.dcm`);
  // Shuffled: names from a hash of the seed and the slice, so their sorted order is not the
  // slice order (a PACS export names files by UID or a counter of its own).
  return Array.from({ length: count }, (_, k) =>
    createHash('sha256')
      .update(`${options.seed ?? 'wbplay'}\0${options.seriesNumber ?? 1}\0${k}`)
      .digest('hex')
      .slice(0, 12)
      .toUpperCase(),
  );
}
