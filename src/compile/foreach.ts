import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { DiagnosticCode } from '../diagnostics/diagnostic.js';
import type { Where } from '../volume/dicom/where.js';
import { dicomStudies, type Per } from './foreach-dicom.js';
import { dicomwebStudies, type ArchiveResults, type ArchiveSearch } from './foreach-dicomweb.js';
import type { RetrieveRef } from './plan.js';
import { glob } from './glob.js';
import { misplacedOption, readTableManifest, type ManifestOptions } from './manifest-source.js';

export interface Study {
  name: string;
  fields: Record<string, unknown>;
  /** Data files the study's case reads beyond those its steps name (a DICOM series' other files), for resume hashes. */
  inputs?: string[];
  /** Series to retrieve from an archive before the case runs. */
  retrieve?: RetrieveRef[];
}

export const FOREACH_SOURCES = ['list', 'glob', 'csv', 'xlsx', 'json', 'dicom', 'dicomweb'] as const;
export type ForeachSource = (typeof FOREACH_SOURCES)[number];

export interface ForeachRaw extends ManifestOptions {
  list?: (string | Record<string, unknown>)[];
  glob?: string;
  csv?: string;
  xlsx?: string;
  json?: string;
  dicom?: string;
  dicomweb?: string;
  per?: Per;
  where?: Where;
  as?: string;
}

export interface ForeachContext {
  /** The playbook's folder: relative sources and paths resolve against it. */
  dir: string;
  checkFiles: boolean;
  error(code: DiagnosticCode, path: (string | number)[], message: string, hint?: string): void;
  /** A problem inside a manifest file, at its line; its text, when it has one, to quote the line. */
  fileError(
    code: DiagnosticCode,
    at: { file: string; line: number; col: number; text?: string },
    message: string,
    hint?: string,
  ): void;
  /** Searches of archives already made (a `dicomweb` source). */
  archives?: ArchiveResults;
  /** A `dicomweb` source whose search is still to be made: the compile is run again with its answer. */
  needSearch?(search: ArchiveSearch): void;
}

export interface Foreach {
  as: string;
  source: ForeachSource;
  /** The glob or manifest file, absolute. */
  from?: string;
  /** Undefined when the source cannot be read now and files are not checked. */
  studies: Study[] | undefined;
}

const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** The studies of a `foreach`, each with `name`, and `path` and `dir` when it has a path. */
export function resolveForeach(raw: ForeachRaw, ctx: ForeachContext): Foreach | undefined {
  const given = FOREACH_SOURCES.filter((s) => raw[s] !== undefined);
  const as = raw.as ?? 'study';
  if (given.length !== 1) {
    const message =
      given.length === 0
        ? '`foreach` needs a source: list, glob, csv, xlsx, json, dicom or dicomweb'
        : `\`foreach\` takes one source, not ${given.join(' and ')}`;
    ctx.error(
      given.length === 0 ? 'MISSING_FIELD' : 'EXCLUSIVE_FIELDS',
      given.length === 0 ? [] : [given[1] ?? ''],
      message,
      'keep one of list, glob, csv, xlsx, json, dicom, dicomweb',
    );
    return undefined;
  }
  const source = given[0] as ForeachSource;
  if (misplacedOption(source, raw, ctx)) return undefined;
  for (const key of ['per', 'where'] as const)
    if (raw[key] !== undefined && source !== 'dicom' && source !== 'dicomweb') {
      ctx.error(
        'FOREACH_SOURCE',
        [key],
        `\`${key}\` belongs to a \`dicom\` or \`dicomweb\` source`,
        `drop it, or enumerate a DICOM folder or archive`,
      );
      return undefined;
    }
  if (source === 'list') {
    const studies = fromRecords(raw.list ?? [], ctx.dir, ['list'], ctx);
    return studies ? { as, source, studies } : undefined;
  }
  if (source === 'dicomweb') {
    const studies = dicomwebStudies(raw, ctx);
    if (studies === undefined) return undefined;
    return {
      as,
      source,
      from: String(raw.dicomweb).replace(/\/+$/, ''),
      studies: studies === 'pending' ? undefined : studies,
    };
  }
  const from = resolve(ctx.dir, String(raw[source]));
  if (source === 'dicom') {
    if (!ctx.checkFiles && !existsSync(from)) return { as, source, from, studies: undefined };
    const studies = dicomStudies(raw, from, ctx);
    return studies ? { as, source, from, studies } : undefined;
  }
  if (source === 'glob') {
    const matches = glob(String(raw.glob), ctx.dir);
    if (matches.length === 0) {
      if (ctx.checkFiles)
        ctx.error(
          'FOREACH_SOURCE',
          ['glob'],
          `the glob \`${raw.glob}\` matches nothing`,
          "check the pattern; it is relative to the playbook's folder",
        );
      return { as, source, from, studies: undefined };
    }
    const studies = fromRecords(matches, ctx.dir, ['glob'], ctx);
    return studies ? { as, source, from, studies } : undefined;
  }
  if (!existsSync(from)) {
    if (ctx.checkFiles)
      ctx.error(
        'FILE_NOT_FOUND',
        [source],
        `the study manifest \`${raw[source]}\` does not exist`,
        "check the path; it is relative to the playbook's folder",
      );
    return { as, source, from, studies: undefined };
  }
  let records: unknown;
  if (source === 'csv' || source === 'xlsx') {
    records = readTableManifest(source, from, raw, ctx);
    if (!records) return undefined;
  } else {
    try {
      records = JSON.parse(readFileSync(from, 'utf8'));
    } catch (err) {
      ctx.error(
        'FOREACH_SOURCE',
        [source],
        `the study manifest is not valid JSON: ${(err as Error).message}`,
        'fix the JSON, or use a CSV manifest',
      );
      return undefined;
    }
  }
  if (!Array.isArray(records) || !records.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r))) {
    ctx.error(
      'FOREACH_SOURCE',
      [source],
      'the study manifest must be a list of studies (objects with fields)',
      'a JSON manifest is an array of objects; a CSV manifest has a header line',
    );
    return undefined;
  }
  const studies = fromRecords(records as Record<string, unknown>[], dirname(from), [source], ctx);
  return studies ? { as, source, from, studies } : undefined;
}

function fromRecords(
  items: readonly (string | Record<string, unknown>)[],
  dir: string,
  at: (string | number)[],
  ctx: ForeachContext,
): Study[] | undefined {
  const studies: Study[] = [];
  const seen = new Map<string, number>();
  for (const [i, item] of items.entries()) {
    const fields: Record<string, unknown> = typeof item === 'string' ? { path: item } : { ...item };
    if (typeof fields.path === 'string' && fields.path !== '') {
      const path = resolve(dir, fields.path);
      fields.path = path;
      fields.dir ??= dirname(path);
      fields.name ??= stem(path);
    }
    const name = fields.name;
    if ((typeof name !== 'string' && typeof name !== 'number') || String(name) === '') {
      ctx.error(
        'FOREACH_SOURCE',
        at[0] === 'list' ? ['list', i] : at,
        `study ${i + 1} has neither a name nor a path`,
        'give every study a `name` or a `path` field',
      );
      return undefined;
    }
    fields.name = String(name);
    const earlier = seen.get(String(name));
    if (earlier !== undefined) {
      ctx.error(
        'DUPLICATE_STUDY',
        at[0] === 'list' ? ['list', i] : at,
        `studies ${earlier + 1} and ${i + 1} are both named \`${name}\``,
        'study names name the cases and their outputs, so they must differ',
      );
      return undefined;
    }
    seen.set(String(name), i);
    studies.push({ name: String(name), fields });
  }
  return studies;
}

/** The file name without its extension; `.nii.gz` and the like count as one extension. */
export function stem(path: string): string {
  const base = basename(path.replace(/\/+$/, ''));
  const m = /^(.+?)(\.[A-Za-z0-9]+)?(\.(gz|bz2|xz|zst))?$/.exec(base);
  return m?.[1] ?? base;
}

/** A value given as text (a CSV field, `--var`): a number when it reads as one, so `opacity: ${x}` works. */
export function textValue(text: string): string | number {
  return NUMBER.test(text.trim()) ? Number(text) : text;
}
