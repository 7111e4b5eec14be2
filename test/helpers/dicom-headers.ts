// Small DICOM files written by the tests: the attributes a header scan reads, and a few bytes of
// pixel data or none. Explicit VR little endian with the Part 10 preamble, or a bare data set in
// implicit VR (what some old exports hold), so the scanner meets both.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Attribute values by keyword; numbers are written in the attribute's VR. */
export type Attrs = Partial<Record<keyof typeof TAGS, string | number>>;

const TAGS = {
  SpecificCharacterSet: [0x0008, 0x0005, 'CS'],
  ImageType: [0x0008, 0x0008, 'CS'],
  SOPClassUID: [0x0008, 0x0016, 'UI'],
  SOPInstanceUID: [0x0008, 0x0018, 'UI'],
  StudyDate: [0x0008, 0x0020, 'DA'],
  AccessionNumber: [0x0008, 0x0050, 'SH'],
  Modality: [0x0008, 0x0060, 'CS'],
  StudyDescription: [0x0008, 0x1030, 'LO'],
  SeriesDescription: [0x0008, 0x103e, 'LO'],
  PatientName: [0x0010, 0x0010, 'PN'],
  PatientID: [0x0010, 0x0020, 'LO'],
  PatientBirthDate: [0x0010, 0x0030, 'DA'],
  BodyPartExamined: [0x0018, 0x0015, 'CS'],
  SliceThickness: [0x0018, 0x0050, 'DS'],
  StudyInstanceUID: [0x0020, 0x000d, 'UI'],
  SeriesInstanceUID: [0x0020, 0x000e, 'UI'],
  SeriesNumber: [0x0020, 0x0011, 'IS'],
  InstanceNumber: [0x0020, 0x0013, 'IS'],
  Rows: [0x0028, 0x0010, 'US'],
  Columns: [0x0028, 0x0011, 'US'],
  /** A private element, to make a header longer than the scanner's first read. */
  Private: [0x0029, 0x1010, 'OB'],
} as const;

export interface FileSpec {
  attrs: Attrs;
  /** Pixel data bytes (Rows × Columns × 2); none for a report or a plan. Default true. */
  pixels?: boolean;
  /** A bare implicit VR data set without preamble and meta group. */
  bare?: boolean;
}

const SR_STORAGE = '1.2.840.10008.5.1.4.1.1.88.11';
const RTPLAN_STORAGE = '1.2.840.10008.5.1.4.1.1.481.5';
const CT_STORAGE = '1.2.840.10008.5.1.4.1.1.2';

export const SOP = { SR: SR_STORAGE, RTPLAN: RTPLAN_STORAGE, CT: CT_STORAGE } as const;

let instance = 0;

/** The bytes of one DICOM file. */
export function dicomBytes(spec: FileSpec): Buffer {
  const attrs: Attrs = {
    SOPClassUID: CT_STORAGE,
    SOPInstanceUID: `2.25.${Date.now()}${++instance}`,
    ...spec.attrs,
  };
  const explicit = !spec.bare;
  const elements: Buffer[] = [];
  const entries = Object.entries(attrs).sort(([a], [b]) => tagOf(a) - tagOf(b));
  for (const [k, v] of entries) {
    const [g, e, vr] = TAGS[k as keyof typeof TAGS];
    elements.push(element(g, e, vr, v ?? '', explicit));
  }
  if (spec.pixels ?? true) {
    const rows = Number(attrs.Rows ?? 2);
    const cols = Number(attrs.Columns ?? 2);
    elements.push(element(0x7fe0, 0x0010, 'OW', Buffer.alloc(rows * cols * 2, 7), explicit));
  }
  const body = Buffer.concat(elements);
  if (spec.bare) return body;
  const meta = Buffer.concat([
    element(0x0002, 0x0001, 'OB', Buffer.from([0, 1]), true),
    element(0x0002, 0x0002, 'UI', String(attrs.SOPClassUID), true),
    element(0x0002, 0x0003, 'UI', String(attrs.SOPInstanceUID), true),
    element(0x0002, 0x0010, 'UI', '1.2.840.10008.1.2.1', true),
  ]);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(meta.length);
  return Buffer.concat([
    Buffer.alloc(128),
    Buffer.from('DICM'),
    element(0x0002, 0x0000, 'UL', length, true),
    meta,
    body,
  ]);
}

/** Writes a DICOM file, making its folder. */
export function writeDicom(path: string, spec: FileSpec): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, dicomBytes(spec));
}

function tagOf(keyword: string): number {
  const [g, e] = TAGS[keyword as keyof typeof TAGS];
  return g * 0x10000 + e;
}

function element(group: number, elem: number, vr: string, value: string | number | Buffer, explicit: boolean): Buffer {
  let data: Buffer;
  if (Buffer.isBuffer(value)) data = value;
  else if (vr === 'US') {
    data = Buffer.alloc(2);
    data.writeUInt16LE(Number(value));
  } else {
    data = Buffer.from(String(value), 'utf8');
    if (data.length % 2 === 1) data = Buffer.concat([data, Buffer.from(vr === 'UI' ? [0] : [0x20])]);
  }
  if (data.length % 2 === 1) data = Buffer.concat([data, Buffer.from([0])]);
  const long = ['OB', 'OW', 'SQ', 'UN', 'UT'].includes(vr);
  const head = Buffer.alloc(explicit ? (long ? 12 : 8) : 8);
  head.writeUInt16LE(group, 0);
  head.writeUInt16LE(elem, 2);
  if (!explicit) head.writeUInt32LE(data.length, 4);
  else {
    head.write(vr, 4, 'latin1');
    if (long) head.writeUInt32LE(data.length, 8);
    else head.writeUInt16LE(data.length, 6);
  }
  return Buffer.concat([head, data]);
}
