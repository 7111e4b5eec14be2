import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { WorkbenchClient } from '../client/index.js';

/** The data properties of an image MITK read from DICOM that say where its files are. */
const DICOM_FILES = 'MITK.IO.reader.DICOM.files';
const PATH = 'path';

/**
 * The file to load again for a node MITK read from DICOM: the first file of its series
 * (`MITK.IO.reader.DICOM.files`), or the `path` it was loaded from, when that file is on this
 * machine. A `load` of it reads the whole series again, as MITK did; downloading the node
 * instead would turn the series into one NRRD and lose what the DICOM said. Undefined for any
 * other node, and for DICOM read on another machine (its paths are not ours).
 */
export async function dicomSourceOf(client: WorkbenchClient, uid: string): Promise<string | undefined> {
  const props = await client.properties.list(uid, { scope: 'data', names: [DICOM_FILES, PATH] }).catch(() => ({}));
  const record = props as Record<string, unknown>;
  const files = firstValue(record[DICOM_FILES]);
  const path = typeof record[PATH] === 'string' ? record[PATH] : firstValue(record[PATH]);
  if (files === undefined) return undefined; // not read by MITK's DICOM reader
  const candidates = [
    files,
    ...(path !== undefined && !isAbsolute(files) ? [join(path, files)] : []),
    ...(path ? [path] : []),
  ];
  return (
    candidates.find((c) => isAbsolute(c) && existsSync(c) && statSync(c).isFile()) ??
    candidates.find((c) => isAbsolute(c) && existsSync(c))
  );
}

/** The first value of a TemporoSpatialStringProperty (`{values: [{z, t, value}]}`), or a plain string. */
function firstValue(p: unknown): string | undefined {
  if (typeof p === 'string') return p;
  const values = (p as { value?: { values?: { value?: unknown }[] } } | undefined)?.value?.values;
  const v = values?.[0]?.value;
  return typeof v === 'string' && v !== '' ? v : undefined;
}
