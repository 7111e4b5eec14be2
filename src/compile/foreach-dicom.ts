import { existsSync, statSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { suggestion } from '../diagnostics/did-you-mean.js';
import { scanDicomFolder, seriesLabel, uidHash, type DicomSeries } from '../volume/dicom/scan.js';
import { CASE_KEYWORDS, KEYWORD_NAMES } from '../volume/dicom/scan-keywords.js';
import { checkWhere, matchesWhere, whereText, type Where } from '../volume/dicom/where.js';
export type { Per };
import type { YNode } from '../playbook/tree.js';
import type { ForeachContext, ForeachRaw, Per, RetrieveRef, Study } from './foreach-source.js';
import type { PlanCase } from './plan.js';
import type { LoadedFile } from './session.js';

/**
 * `foreach: { dicom: FOLDER, per: series | study, where: {...} }`: one case per DICOM series
 * (or study) found under FOLDER by its headers.
 *
 * A case's `name` is `<study>-<Modality><SeriesNumber>-<series>` (a study's: `<study>-<its
 * modalities>`), where `<study>` and `<series>` are the first hex digits of the SHA-256 of the
 * StudyInstanceUID and SeriesInstanceUID. It holds nothing that names or dates a person (no
 * patient name, ID, birth date, nor even the study date, which de-identification profiles
 * count as identifying), it is the same on every machine and run (UIDs do not depend on where
 * the files lie), file-system safe (letters, digits and `-`), and reads in study order when
 * listed. Only a series split over several folders adds its folder to the series hash.
 */

/** Study digits: 40 bits keep 20,000 studies apart; a series needs fewer beside its study's. */
const STUDY_DIGITS = 10;
const SERIES_DIGITS = 6;

/** The cases of a DICOM folder; undefined after an error (reported through `ctx`). */
export function dicomStudies(raw: ForeachRaw, from: string, ctx: ForeachContext): Study[] | undefined {
  const per: Per = raw.per ?? 'series';
  const where = raw.where;
  if (!whereIsValid(where, ctx)) return undefined;
  if (!existsSync(from) || !statSync(from).isDirectory()) {
    ctx.error(
      'FILE_NOT_FOUND',
      ['dicom'],
      existsSync(from)
        ? `\`${raw.dicom}\` is a file, not a folder of DICOM files`
        : `the folder \`${raw.dicom}\` does not exist`,
      "give the folder that holds the DICOM export; it is relative to the playbook's folder",
    );
    return undefined;
  }
  let scan: ReturnType<typeof scanDicomFolder>;
  try {
    scan = scanDicomFolder(from, { recursive: true });
  } catch (err) {
    ctx.error(
      'FOREACH_SOURCE',
      ['dicom'],
      `cannot list \`${raw.dicom}\`: ${(err as Error).message}`,
      'check its permissions',
    );
    return undefined;
  }
  if (scan.series.length === 0) {
    const { files, dicom, notSeries } = scan.counts;
    ctx.error(
      'FOREACH_SOURCE',
      ['dicom'],
      `\`${raw.dicom}\` holds no DICOM series: ${files} ${files === 1 ? 'file' : 'files'}, ${dicom} DICOM, ${notSeries} of them without pixel data`,
      'a series is a DICOM image with pixel data; reports, RT plans and DICOMDIR files are not',
    );
    return undefined;
  }
  return casesOfSeries(scan.series, from, raw.dicom ?? '', per, where, ctx);
}

/**
 * The cases of a set of series (scanned from a folder, or found in an archive and laid out in
 * the cache under `root`): named, matched against `where`, and grouped per series or study.
 */
export function casesOfSeries(
  series: readonly DicomSeries[],
  root: string,
  shown: string,
  per: Per,
  where: Where | undefined,
  ctx: Pick<ForeachContext, 'error'>,
  retrieve?: (s: DicomSeries) => RetrieveRef,
): Study[] | undefined {
  const named = nameSeries(series, root);
  const matching = where ? named.filter((s) => matchesWhere(s.series.keywords, where)) : named;
  if (matching.length === 0) {
    const shownSeries = named.slice(0, 8).map((s) => seriesLabel(s.series, root));
    ctx.error(
      'FOREACH_SOURCE',
      ['where'],
      `no series of \`${shown}\` matches \`${whereText(where ?? {})}\``,
      named.length === 0
        ? 'it holds no series'
        : `its series: ${shownSeries.join('; ')}${named.length > shownSeries.length ? `; and ${named.length - shownSeries.length} more` : ''}`,
    );
    return undefined;
  }
  return per === 'series' ? matching.map((s) => seriesCase(s, retrieve)) : studyCases(named, matching, root, retrieve);
}

/** Whether `where` names only keywords a series has; says which it does not. */
export function whereIsValid(where: Where | undefined, ctx: Pick<ForeachContext, 'error'>): boolean {
  if (!where) return true;
  const problems = checkWhere(where);
  // Values of the wrong kind are the schema's to report; keywords only this module knows.
  for (const p of problems.filter((p) => p.kind === 'keyword'))
    ctx.error(
      'FOREACH_SOURCE',
      ['where', p.key],
      p.message,
      suggestion(p.key, KEYWORD_NAMES, `the keywords are ${KEYWORD_NAMES.join(', ')}`),
    );
  return problems.length === 0;
}

interface Named {
  series: DicomSeries;
  name: string;
  study: string;
}

function nameSeries(series: readonly DicomSeries[], root: string): Named[] {
  const folders = new Map<string, number>();
  for (const s of series) {
    const uid = String(s.keywords.SeriesInstanceUID);
    folders.set(uid, (folders.get(uid) ?? 0) + 1);
  }
  const taken = new Map<string, number>();
  return series.map((s) => {
    const k = s.keywords;
    const uid = String(k.SeriesInstanceUID);
    const study = uidHash(String(k.StudyInstanceUID), STUDY_DIGITS);
    const split = (folders.get(uid) ?? 0) > 1;
    const own = uidHash(split ? `${uid}\0${relative(root, s.dir).split(sep).join('/')}` : uid, SERIES_DIGITS);
    const label = safe(`${k.Modality}${k.SeriesNumber}`);
    return { series: s, study, name: unique(`${study}-${label ? `${label}-` : ''}${own}`, taken) };
  });
}

function seriesCase(s: Named, retrieve?: (s: DicomSeries) => RetrieveRef): Study {
  const fields: Record<string, unknown> = {
    name: s.name,
    path: s.series.path,
    dir: s.series.dir,
    files: s.series.files,
  };
  for (const k of CASE_KEYWORDS) fields[k] = s.series.keywords[k] ?? '';
  return { name: s.name, fields, inputs: s.series.paths, ...(retrieve ? { retrieve: [retrieve(s.series)] } : {}) };
}

/**
 * A study covers all its series when any of them matches. Its folder is the deepest one
 * holding all its series; a keyword its series disagree on lists their values with `\`, as
 * DICOM writes several values (ModalitiesInStudy).
 */
function studyCases(
  all: readonly Named[],
  matching: readonly Named[],
  root: string,
  retrieve?: (s: DicomSeries) => RetrieveRef,
): Study[] {
  const wanted = new Set(matching.map((s) => s.study));
  const studies = new Map<string, Named[]>();
  for (const s of all) if (wanted.has(s.study)) studies.set(s.study, [...(studies.get(s.study) ?? []), s]);
  const taken = new Map<string, number>();
  return [...studies].map(([hash, members]) => {
    const values = (k: string): (string | number)[] => [...new Set(members.map((m) => m.series.keywords[k] ?? ''))];
    const modalities = values('Modality').filter((m) => m !== '');
    const name = unique(`${hash}${modalities.length > 0 ? `-${safe(modalities.join('-'))}` : ''}`, taken);
    const folder = commonFolder(
      members.map((m) => m.series.dir),
      root,
    );
    const fields: Record<string, unknown> = {
      name,
      path: folder,
      dir: folder,
      files: members.reduce((n, m) => n + m.series.files, 0),
      series: members.length,
    };
    for (const k of CASE_KEYWORDS) {
      const v = values(k);
      fields[k] = v.length === 1 ? v[0] : v.join('\\');
    }
    return {
      name,
      fields,
      inputs: members.flatMap((m) => m.series.paths),
      ...(retrieve ? { retrieve: members.map((m) => retrieve(m.series)) } : {}),
    };
  });
}

function commonFolder(dirs: readonly string[], root: string): string {
  let common = dirs[0] ?? root;
  for (const d of dirs)
    while (common !== root && d !== common && !d.startsWith(common + sep)) common = resolve(common, '..');
  return common;
}

/** Letters and digits only: a modality or series number never makes a path. */
function safe(text: string): string {
  return text.replace(/[^A-Za-z0-9-]+/g, '');
}

/** Equal names (hashes that meet, which 40 bits make unlikely) get `-2`, `-3` in case order. */
function unique(name: string, taken: Map<string, number>): string {
  const n = (taken.get(name) ?? 0) + 1;
  taken.set(name, n);
  return n === 1 ? name : `${name}-${n}`;
}

/**
 * The study fields a playbook reads: every `${study.X}` in a value of the playbook or its
 * includes (not in a comment; `$${` is a literal). Read from the parsed files rather than
 * gathered while the cases compile, so it does not matter when or how often a case compiles.
 */
export function fieldsRead(files: readonly LoadedFile[], as: string): Set<string> {
  const found = new Set<string>();
  const re = new RegExp(`(?<!\\$)\\$\\{\\s*${as}\\.([A-Za-z_][A-Za-z0-9_-]*)\\s*\\}`, 'g');
  const walk = (node: YNode): void => {
    if (node.type === 'map') for (const e of node.entries) walk(e.value);
    else if (node.type === 'seq') for (const item of node.items) walk(item);
    else if (typeof node.value === 'string') for (const m of node.value.matchAll(re)) found.add(m[1] ?? '');
  };
  for (const f of files) if (f.root) walk(f.root);
  return found;
}

/** A DICOM case keeps the fields its playbook reads, and its name: reports get shared, DICOM tags identify people. */
export function keepFieldsRead(cases: PlanCase[], read: ReadonlySet<string>): void {
  for (const c of cases)
    if (c.study) c.study = Object.fromEntries(Object.entries(c.study).filter(([k]) => k === 'name' || read.has(k)));
}
