/**
 * The DICOM attributes a header scan reads, by keyword: what a cohort's cases carry and what a
 * `where:` can select on. Patient's name and birth date are deliberately absent: wbplay never
 * reads them, so no case name, report or error message can hold them.
 */

/** How a value is read: text (trailing padding removed), an integer string, a decimal string, or a binary US. */
export type KeywordKind = 'text' | 'IS' | 'DS' | 'US';

export interface KeywordDef {
  /** dicom-parser's tag key, `xGGGGEEEE`. */
  tag: string;
  kind: KeywordKind;
}

const def = (tag: string, kind: KeywordKind = 'text'): KeywordDef => ({ tag: `x${tag.toLowerCase()}`, kind });

/** The keywords of every series, in the order a case lists them. */
export const CASE_KEYWORDS = [
  'PatientID',
  'StudyInstanceUID',
  'StudyDate',
  'StudyDescription',
  'AccessionNumber',
  'SeriesInstanceUID',
  'SeriesNumber',
  'SeriesDescription',
  'Modality',
  'BodyPartExamined',
  'Rows',
  'Columns',
] as const;

/** Every keyword the scan reads; `where:` accepts these. */
export const KEYWORDS: Readonly<Record<string, KeywordDef>> = {
  PatientID: def('00100020'),
  PatientSex: def('00100040'),
  StudyInstanceUID: def('0020000D'),
  StudyDate: def('00080020'),
  StudyTime: def('00080030'),
  StudyDescription: def('00081030'),
  StudyID: def('00200010'),
  AccessionNumber: def('00080050'),
  InstitutionName: def('00080080'),
  Manufacturer: def('00080070'),
  ManufacturerModelName: def('00081090'),
  StationName: def('00081010'),
  SeriesInstanceUID: def('0020000E'),
  SeriesNumber: def('00200011', 'IS'),
  SeriesDescription: def('0008103E'),
  SeriesDate: def('00080021'),
  SeriesTime: def('00080031'),
  Modality: def('00080060'),
  BodyPartExamined: def('00180015'),
  ProtocolName: def('00181030'),
  SOPClassUID: def('00080016'),
  ImageType: def('00080008'),
  FrameOfReferenceUID: def('00200052'),
  Laterality: def('00200060'),
  PatientPosition: def('00185100'),
  ContrastBolusAgent: def('00180010'),
  ConvolutionKernel: def('00181210'),
  ScanningSequence: def('00180020'),
  SequenceName: def('00180024'),
  KVP: def('00180060', 'DS'),
  SliceThickness: def('00180050', 'DS'),
  SpacingBetweenSlices: def('00180088', 'DS'),
  RepetitionTime: def('00180080', 'DS'),
  EchoTime: def('00180081', 'DS'),
  MagneticFieldStrength: def('00180087', 'DS'),
  AcquisitionNumber: def('00200012', 'IS'),
  NumberOfFrames: def('00280008', 'IS'),
  Rows: def('00280010', 'US'),
  Columns: def('00280011', 'US'),
  PixelSpacing: def('00280030'),
  PhotometricInterpretation: def('00280004'),
  BitsAllocated: def('00280100', 'US'),
  TransferSyntaxUID: def('00020010'),
};

export const KEYWORD_NAMES: readonly string[] = Object.keys(KEYWORDS);

/** A series' keyword values: text, or a number for IS, DS and US attributes that hold one. */
export type DicomKeywords = Record<string, string | number>;
