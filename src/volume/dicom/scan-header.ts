import { TextDecoder } from 'node:util';
import type { DataSet, Element } from 'dicom-parser';
import { readHeaderSync } from './data-set.js';
import { FIRST_READ } from './header.js';
import { KEYWORDS, type DicomKeywords, type KeywordDef } from './scan-keywords.js';

/**
 * Reading one file's DICOM header and no more, by header.ts's rule (the one the reader uses):
 * dicom-parser stops at the pixel data's tag, and only the file's first bytes are read, since
 * the header of an image is a few KiB in front of hundreds of KiB of pixels; a longer header
 * (private vendor blocks, an enhanced multi-frame object, a deflated data set) takes larger reads.
 */

/** What a header says: whether the file holds pixels, its series, and its keywords when asked. */
export interface Header {
  hasPixels: boolean;
  seriesUid: string;
  /** Present when `wantKeywords(seriesUid)` said so: the first file of a series. */
  keywords?: DicomKeywords;
}

export { FIRST_READ };

const PIXEL_TAGS = ['x7fe00010', 'x7fe00008', 'x7fe00009'];
const SERIES_UID = 'x0020000e';
const CHARSET = 'x00080005';

const first = Buffer.allocUnsafe(FIRST_READ);

/** The header of `path`, or undefined when it is not a DICOM file we can parse (or not readable). */
export function readHeader(path: string, wantKeywords: (seriesUid: string) => boolean): Header | undefined {
  const ds = readDataSetHeader(path);
  return ds && headerOf(ds, wantKeywords);
}

/**
 * The data set up to the pixel data, or undefined when the file is no DICOM, cannot be parsed or
 * read: the reader's own header read (`readHeaderSync`), so the two never disagree about a file.
 * A small header's bytes live in a buffer the next call reuses: read it before then.
 */
export function readDataSetHeader(path: string): DataSet | undefined {
  try {
    return readHeaderSync(path, first).ds;
  } catch {
    return undefined; // no DICOM, a folder's entry that is not a regular file after all, or a read error
  }
}

function headerOf(ds: DataSet, wantKeywords: (seriesUid: string) => boolean): Header {
  const hasPixels = PIXEL_TAGS.some((t) => ds.elements[t] !== undefined);
  const seriesUid = textOf(ds, ds.elements[SERIES_UID]);
  return { hasPixels, seriesUid, ...(hasPixels && wantKeywords(seriesUid) ? { keywords: keywordsOf(ds) } : {}) };
}

function keywordsOf(ds: DataSet): DicomKeywords {
  const decoder = decoderFor(ds);
  const out: DicomKeywords = {};
  for (const [name, def] of Object.entries(KEYWORDS)) out[name] = valueOf(ds, def, decoder);
  return out;
}

function valueOf(ds: DataSet, def: KeywordDef, decoder: TextDecoder): string | number {
  const el = ds.elements[def.tag];
  if (!el || el.length === 0) return '';
  if (def.kind === 'US') return el.length >= 2 ? (ds.uint16(def.tag) ?? '') : '';
  const text = textOf(ds, el, decoder);
  if (def.kind === 'text' || text === '' || text.includes('\\')) return text;
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}

const latin1 = new TextDecoder('latin1');
const decoders = new Map<string, TextDecoder>();

/** Text values in the data set's character set (its first one; ISO 2022 extensions are read as Latin-1). */
function decoderFor(ds: DataSet): TextDecoder {
  const el = ds.elements[CHARSET];
  const term = el ? (textOf(ds, el).split('\\')[0] ?? '') : '';
  const label = CHARSETS[term.replace(/^ISO 2022 /, 'ISO_IR ')];
  if (!label) return latin1;
  let d = decoders.get(label);
  if (!d) {
    try {
      d = new TextDecoder(label);
    } catch {
      d = latin1; // a Node built without that encoding
    }
    decoders.set(label, d);
  }
  return d;
}

const CHARSETS: Record<string, string> = {
  'ISO_IR 192': 'utf-8',
  'ISO_IR 100': 'latin1',
  'ISO_IR 101': 'iso-8859-2',
  'ISO_IR 109': 'iso-8859-3',
  'ISO_IR 110': 'iso-8859-4',
  'ISO_IR 144': 'iso-8859-5',
  'ISO_IR 127': 'iso-8859-6',
  'ISO_IR 126': 'iso-8859-7',
  'ISO_IR 138': 'iso-8859-8',
  'ISO_IR 148': 'iso-8859-9',
  'ISO_IR 203': 'iso-8859-15',
  'ISO_IR 13': 'shift_jis',
  'ISO_IR 166': 'windows-874',
  GB18030: 'gb18030',
  GBK: 'gbk',
};

/** An element's text without DICOM's padding (spaces, a trailing NUL); empty when absent. */
function textOf(ds: DataSet, el: Element | undefined, decoder: TextDecoder = latin1): string {
  if (!el || el.length === 0 || el.dataOffset + el.length > ds.byteArray.length) return '';
  const bytes = ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length);
  return decoder
    .decode(bytes)
    .replace(/[\s\0]+$/, '')
    .replace(/^ +/, '');
}
