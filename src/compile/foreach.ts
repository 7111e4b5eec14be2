import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { dicomStudies } from './foreach-dicom.js';
import { dicomwebStudies } from './foreach-dicomweb.js';
import {
  FOREACH_SOURCES,
  type Foreach,
  type ForeachContext,
  type ForeachRaw,
  type ForeachSource,
  type Study,
} from './foreach-source.js';
import { glob } from './glob.js';
import { misplacedOption, readTableManifest } from './manifest-source.js';

export { FOREACH_SOURCES };
export type { Foreach, ForeachContext, ForeachRaw, ForeachSource, Study };

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
      per: raw.per ?? 'series',
      from: String(raw.dicomweb).replace(/\/+$/, ''),
      studies: studies === 'pending' ? undefined : studies,
    };
  }
  const from = resolve(ctx.dir, String(raw[source]));
  if (source === 'dicom') {
    const per = raw.per ?? 'series';
    if (!ctx.checkFiles && !existsSync(from)) return { as, source, per, from, studies: undefined };
    const studies = dicomStudies(raw, from, ctx);
    return studies ? { as, source, per, from, studies } : undefined;
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
