import * as nodePath from 'node:path';
import { portablePath, type PathModule } from './portable-path.js';
import { addPngText, readPngText } from '../image/png-text.js';

/** What made a figure, carried inside the PNG so the file can always be traced back. */
export interface FigureProvenance {
  playbook: string;
  playbookSha256: string;
  /** The step that captured the figure, e.g. `3: screenshot axial`. */
  step: string;
  workbench?: string;
  engine_version?: string;
  api_version?: string;
  /** Input files and their SHA-256. */
  inputs?: Record<string, string>;
  /** The wbplay version. */
  version: string;
}

const PREFIX = 'wbplay:';

export function provenanceEntries(p: FigureProvenance): Record<string, string> {
  const entries: Record<string, string> = {
    [`${PREFIX}playbook`]: p.playbook,
    [`${PREFIX}playbook-sha256`]: p.playbookSha256,
    [`${PREFIX}step`]: p.step,
  };
  if (p.workbench !== undefined) entries[`${PREFIX}workbench`] = p.workbench;
  if (p.engine_version !== undefined) entries[`${PREFIX}engine_version`] = p.engine_version;
  if (p.api_version !== undefined) entries[`${PREFIX}api_version`] = p.api_version;
  if (p.inputs !== undefined) entries[`${PREFIX}inputs`] = JSON.stringify(p.inputs);
  entries[`${PREFIX}version`] = p.version;
  return entries;
}

/** The PNG with its provenance added as text chunks (pixels untouched). */
export function stampProvenance(png: Uint8Array, provenance: FigureProvenance): Uint8Array {
  return addPngText(png, provenanceEntries(provenance));
}

/** The provenance found in a PNG, or undefined when it carries none. */
export function readProvenance(png: Uint8Array): FigureProvenance | undefined {
  const text = readPngText(png);
  const get = (key: string) => text[`${PREFIX}${key}`];
  const playbook = get('playbook');
  const version = get('version');
  if (playbook === undefined || version === undefined) return undefined;
  const p: FigureProvenance = {
    playbook,
    playbookSha256: get('playbook-sha256') ?? '',
    step: get('step') ?? '',
    version,
  };
  const workbench = get('workbench');
  if (workbench !== undefined) p.workbench = workbench;
  const engine = get('engine_version');
  if (engine !== undefined) p.engine_version = engine;
  const api = get('api_version');
  if (api !== undefined) p.api_version = api;
  const inputs = get('inputs');
  if (inputs !== undefined) {
    try {
      p.inputs = JSON.parse(inputs) as Record<string, string>;
    } catch {
      // A hand-edited value that is no longer JSON is dropped rather than failing the read.
    }
  }
  return p;
}

/**
 * Provenance without the machine's folders, so a figure made from the same playbook and data has
 * the same bytes on every machine and platform: the playbook by its file name, an input inside the
 * playbook's folder by its path from there (with `/`, also on Windows), one elsewhere (a data
 * folder named on the command line) by its file name. The hashes say which data it was.
 */
export function portableProvenance(p: FigureProvenance, path: PathModule = nodePath): FigureProvenance {
  const base = path.dirname(path.resolve(p.playbook));
  const portable = (file: string): string => {
    const name = portablePath(base, file, path);
    return path.isAbsolute(name) ? path.basename(file) : name;
  };
  const inputs: Record<string, string> = {};
  for (const [file, hash] of Object.entries(p.inputs ?? {})) {
    let key = portable(file);
    for (let n = 2; key in inputs; n++) key = `${portable(file)} (${n})`;
    inputs[key] = hash;
  }
  return { ...p, playbook: path.basename(p.playbook), ...(p.inputs !== undefined ? { inputs } : {}) };
}
