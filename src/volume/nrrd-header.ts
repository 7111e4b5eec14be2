import { unreadable } from './image-read-error.js';

/**
 * NRRD header parsing, by hand: no maintained npm package reads NRRD (the ones published are
 * unmaintained and handle neither detached headers nor all encodings), and the format is a
 * short line-oriented text header.
 */
export interface NrrdHeader {
  /** Field names lower-cased with single spaces (`space directions`, `data file`). */
  fields: Map<string, string>;
  /** `key:=value` pairs, verbatim. */
  keyValues: Map<string, string>;
  /** Offset of the first byte after the blank line that ends the header, or the input's length. */
  dataOffset: number;
}

const WHERE = 'NRRD header';
const FIELD_ALIASES: Record<string, string> = {
  datafile: 'data file',
  lineskip: 'line skip',
  byteskip: 'byte skip',
  spacedimension: 'space dimension',
  spacedirections: 'space directions',
  spaceorigin: 'space origin',
  spaceunits: 'space units',
};

export function isNrrdMagic(bytes: Uint8Array): boolean {
  const magic = 'NRRD000';
  if (bytes.length < 8) return false;
  for (let i = 0; i < magic.length; i++) if (bytes[i] !== magic.charCodeAt(i)) return false;
  return true;
}

export function parseNrrdHeader(bytes: Uint8Array): NrrdHeader {
  if (!isNrrdMagic(bytes)) unreadable(`${WHERE}: not a NRRD file (it does not start with 'NRRD000')`);
  const decoder = new TextDecoder('utf-8');
  const fields = new Map<string, string>();
  const keyValues = new Map<string, string>();
  let at = lineEnd(bytes, 0);
  let dataOffset = bytes.length;
  while (at < bytes.length) {
    const end = lineEnd(bytes, at);
    const line = decoder.decode(bytes.subarray(at, end)).replace(/\r?\n$/, '');
    at = end;
    if (line === '') {
      dataOffset = at;
      break;
    }
    if (line.startsWith('#')) continue;
    const kv = line.indexOf(':=');
    const colon = line.indexOf(': ');
    if (kv >= 0 && (colon < 0 || kv < colon)) {
      keyValues.set(line.slice(0, kv), line.slice(kv + 2));
      continue;
    }
    if (colon < 0) {
      // A detached header may end in the file list of `data file: LIST`; anything else is not a header line.
      if (fields.get('data file')?.startsWith('LIST')) continue;
      unreadable(`${WHERE}: line '${line.slice(0, 60)}' is neither 'field: value' nor 'key:=value'`);
    }
    const raw = line.slice(0, colon).trim().toLowerCase().replace(/\s+/g, ' ');
    const name = FIELD_ALIASES[raw.replace(/ /g, '')] ?? raw;
    if (fields.has(name)) unreadable(`${WHERE}: field '${name}' appears twice`);
    fields.set(name, line.slice(colon + 2).trim());
  }
  return { fields, keyValues, dataOffset };
}

/** Offset just past the next newline (or the end of the input). */
function lineEnd(bytes: Uint8Array, from: number): number {
  const nl = bytes.indexOf(0x0a, from);
  return nl < 0 ? bytes.length : nl + 1;
}

/** `(1,0,0) none (0,0,2.5)` → one entry per axis, `null` for `none`. */
export function parseVectors(text: string, where: string): (number[] | null)[] {
  const out: (number[] | null)[] = [];
  const pattern = /\(([^)]*)\)|none/gy;
  const trimmed = text.trim();
  let rest = trimmed;
  while (rest.length > 0) {
    pattern.lastIndex = 0;
    const m = pattern.exec(rest);
    if (m === null)
      unreadable(`${WHERE}: '${where}' has malformed vector '${rest.slice(0, 40)}'; expected (x,y,z) or none`);
    if (m[1] === undefined) {
      out.push(null);
    } else {
      const parts = m[1].split(',').map((p) => Number(p.trim()));
      if (parts.some((p) => !Number.isFinite(p)))
        unreadable(`${WHERE}: '${where}' has a non-numeric vector '(${m[1]})'`);
      out.push(parts);
    }
    rest = rest.slice(m[0].length).trimStart();
  }
  return out;
}

/** Whitespace-separated list of a field, with a check of its length. */
export function fieldList(header: NrrdHeader, name: string, count: number): string[] | undefined {
  const value = header.fields.get(name);
  if (value === undefined) return undefined;
  const items = value.split(/\s+/).filter((s) => s.length > 0);
  if (items.length !== count) unreadable(`${WHERE}: '${name}' has ${items.length} entries, 'dimension' says ${count}`);
  return items;
}
