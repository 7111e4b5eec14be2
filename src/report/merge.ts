import { isAbsolute, resolve } from 'node:path';
import { portableLink } from '../files/portable-path.js';
import {
  RESULT_VERSION,
  runStatus,
  summarize,
  type Artefact,
  type CaseReader,
  type CaseResult,
  type CaseSummary,
  type Provenance,
  type RunResult,
} from '../result/result.js';
import { postRunStages } from '../steps/post-run/stages.js';
import { ReadableCases } from '../result/case-list.js';
import { openReport } from './read-report.js';
import { ReportError } from './report-error.js';

/** One shard's result and the folder it was written to (its artefact paths are relative to it). */
export interface ShardResult {
  result: RunResult;
  dir: string;
}

/**
 * Reads `report.json` from each shard folder and merges them (see `mergeRunResults`). Each
 * report is read line by line and only its cases' summaries are kept; the merged reports are
 * written from the shards' files, a case at a time, so memory holds keys, not cases.
 */
export async function mergeReports(dirs: readonly string[], outputDir: string): Promise<RunResult> {
  const shards: ShardResult[] = [];
  for (const dir of dirs) shards.push({ result: await openReport(dir), dir });
  const merged = mergeRunResults(shards, outputDir);
  // Each shard drew its figures of its own cases; the merged folder gets those of the whole run.
  for (const figure of merged.figures ?? [])
    await postRunStages.find((stage) => stage.owns(figure))?.redraw(figure, merged.cases.summaries, outputDir);
  return merged;
}

/**
 * Merges the results of the shards of one run into the result an unsharded run would have
 * given: every case once, in a stable order (playbook, then case id), the summary and status
 * recomputed, the earliest start and the whole span as the duration, and artefact paths made
 * relative to the merged output folder so the merged HTML report finds the shards' images.
 * Only the cases' summaries are ordered here; the merged list reads each case from its shard.
 */
export function mergeRunResults(shards: readonly ShardResult[], outputDir: string): RunResult {
  if (shards.length === 0)
    throw new ReportError(
      'NO_REPORTS',
      'no shard reports to merge',
      'give the output folders of the shards, e.g. `wbplay merge-reports shard-*/ --out merged`',
    );
  checkShardsComplete(shards);
  const provenance = mergeProvenance(shards.map((s) => s.result.provenance));
  const seen = new Map<string, string>();
  const entries: MergedEntry[] = [];
  shards.forEach((shard, s) => {
    shard.result.cases.summaries.forEach((c, position) => {
      const key = `${c.playbook}\u0000${c.id}`;
      const other = seen.get(key);
      if (other !== undefined) {
        throw new ReportError(
          'SHARDS_OVERLAP',
          `case "${c.id}" of ${c.playbook} is in the reports of both ${other} and ${shard.dir}`,
          'merge the shards of one run only (same playbook, same --shard n, each index once)',
        );
      }
      seen.set(key, shard.dir);
      entries.push({ shard: s, position, playbook: c.playbook, id: c.id, summary: c });
    });
  });
  sortCases(
    entries,
    provenance.playbooks.map((p) => p.path),
  );
  const cases = new MergedCases(shards, entries, outputDir);

  const spans = shards.map((s) => {
    const start = Date.parse(s.result.startedAt);
    if (Number.isNaN(start))
      throw new ReportError(
        'REPORT_INVALID',
        `the report in ${s.dir} has a startedAt that is not a date: ${JSON.stringify(s.result.startedAt)}`,
        'run that shard again',
      );
    return { start, end: start + s.result.durationMs };
  });
  const start = Math.min(...spans.map((s) => s.start));
  const end = Math.max(...spans.map((s) => s.end));

  const figures = mergeFigures(shards, outputDir, cases.summaries);
  return {
    version: RESULT_VERSION,
    startedAt: new Date(start).toISOString(),
    durationMs: end - start,
    // A shard that was stopped leaves the whole run incomplete.
    status: shards.some((s) => s.result.status === 'interrupted') ? 'interrupted' : runStatus(cases.summaries),
    provenance,
    cases,
    summary: summarize(cases.summaries),
    ...(figures.length > 0 ? { figures } : {}),
  };
}

/**
 * A merge of some of a run's shards would be taken for the whole run: every shard of it must be
 * there. Reports of runs that were not sharded (or of a wbplay that did not say) are merged as
 * given.
 */
function checkShardsComplete(shards: readonly ShardResult[]): void {
  const sharded = shards.filter((s) => s.result.shard !== undefined);
  const first = sharded[0]?.result.shard;
  if (!first) return;
  const other = sharded.find((s) => s.result.shard!.count !== first.count || s.result.shard!.total !== first.total);
  if (other)
    throw new ReportError(
      'SHARDS_OVERLAP',
      `the report in ${other.dir} is shard ${other.result.shard!.index}/${other.result.shard!.count} of ${other.result.shard!.total} cases, the one in ${sharded[0]!.dir} shard ${first.index}/${first.count} of ${first.total}: they are not shards of one run`,
      'merge the shards of one run only (same playbooks, same --shard n)',
    );
  const present = new Set(sharded.map((s) => s.result.shard!.index));
  const missing = Array.from({ length: first.count }, (_, i) => i + 1).filter((i) => !present.has(i));
  if (missing.length === 0) return;
  const have = sharded.reduce((n, s) => n + s.result.cases.summaries.length, 0);
  const lost = first.total - have;
  throw new ReportError(
    'SHARDS_MISSING',
    `shard${missing.length === 1 ? '' : 's'} ${missing.join(', ')} of ${first.count} ${missing.length === 1 ? 'has' : 'have'} no report among those given: ${lost} of the run's ${first.total} cases are missing (the studies of ${missing.length === 1 ? 'that shard' : 'those shards'}), so no merged report is written`,
    `run ${missing.length === 1 ? 'that shard' : 'those shards'} (--shard ${missing[0]}/${first.count}${missing.length > 1 ? ', …' : ''}) to its end, then merge the folders of all ${first.count} shards`,
  );
}

/**
 * The cases a merged run lacks a result of: those its interrupted shards did not reach (an
 * interrupted run reports them as skipped).
 */
export function notReached(result: RunResult): CaseSummary[] {
  return result.status === 'interrupted' ? result.cases.summaries.filter((c) => c.status === 'skipped') : [];
}

/** A case of the merged run: which shard has it, where in that shard's list, and its summary. */
interface MergedEntry {
  shard: number;
  position: number;
  playbook: string;
  id: string;
  summary: CaseSummary;
}

/** The merged cases in merged order, each read from its shard's report and relocated when asked for. */
class MergedCases extends ReadableCases {
  readonly summaries: readonly CaseSummary[];

  constructor(
    private readonly shards: readonly ShardResult[],
    private readonly entries: readonly MergedEntry[],
    private readonly outputDir: string,
  ) {
    super();
    this.summaries = entries.map((e) => e.summary);
  }

  reader(): Promise<CaseReader> {
    // A shard's file is opened when its first case is read and stays open for the pass.
    const open = new Map<number, Promise<CaseReader>>();
    return Promise.resolve({
      read: async (position) => {
        const entry = this.entries[position];
        if (!entry) throw new RangeError(`no merged case at position ${position}`);
        const shard = this.shards[entry.shard] as ShardResult;
        const reader = open.get(entry.shard) ?? shard.result.cases.reader();
        open.set(entry.shard, reader);
        return relocateCase(await (await reader).read(entry.position), shard.dir, this.outputDir);
      },
      close: async () => {
        for (const reader of open.values()) await (await reader).close();
      },
    });
  }
}

/**
 * The shards' figures, relocated. The figures of a post-run stage are merged by that stage
 * (contact sheets of one name become one sheet of every shard's tiles; `mergeReports` draws it).
 */
function mergeFigures(shards: readonly ShardResult[], outputDir: string, cases: readonly CaseSummary[]): Artefact[] {
  const figures: Artefact[] = [];
  for (const shard of shards) {
    for (const f of shard.result.figures ?? []) {
      if (!postRunStages.some((stage) => stage.owns(f)))
        figures.push({ ...f, path: relocate(f.path, shard.dir, outputDir) });
    }
  }
  for (const stage of postRunStages) {
    const own = shards.map((shard) => ({
      figures: (shard.result.figures ?? []).filter((f) => stage.owns(f)),
      relocate: (path: string) => relocate(path, shard.dir, outputDir),
    }));
    figures.push(...stage.merge(own, cases));
  }
  return figures;
}

/** Playbooks in the order the run had them, then case ids in natural order (`s2` before `s10`). */
export function sortCases(cases: Array<{ playbook: string; id: string }>, playbookOrder: readonly string[]): void {
  const rank = new Map(playbookOrder.map((p, i) => [p, i]));
  const natural = new Intl.Collator('en', { numeric: true, sensitivity: 'variant' });
  const plain = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  cases.sort((a, b) => {
    const ra = rank.get(a.playbook) ?? Number.MAX_SAFE_INTEGER;
    const rb = rank.get(b.playbook) ?? Number.MAX_SAFE_INTEGER;
    if (ra !== rb) return ra - rb;
    // Ties of the collator (ids that differ only in ways it ignores) fall back to code points,
    // so the order is total and the same on every machine.
    return plain(a.playbook, b.playbook) || natural.compare(a.id, b.id) || plain(a.id, b.id);
  });
}

function mergeProvenance(all: readonly Provenance[]): Provenance {
  const playbooks: Provenance['playbooks'] = [];
  const known = new Set<string>();
  for (const p of all) {
    for (const b of p.playbooks) {
      const key = `${b.path}\u0000${b.sha256}`;
      if (!known.has(key)) {
        known.add(key);
        playbooks.push({ path: b.path, sha256: b.sha256 });
      }
    }
  }
  const merged: Provenance = { playbooks, wbplay: distinct(all.map((p) => p.wbplay)).join(', ') };
  const workbench = agreeing(all.map((p) => p.workbench));
  if (workbench) merged.workbench = workbench;
  return merged;
}

/**
 * The workbench fields every shard agrees on. Shards usually ran on different machines, so a
 * URL that differs is left out here; each case still names the workbench that ran it.
 */
function agreeing(all: ReadonlyArray<Provenance['workbench']>): Provenance['workbench'] {
  const present = all.filter((w): w is NonNullable<typeof w> => w !== undefined);
  if (present.length === 0) return undefined;
  const keys = ['name', 'url', 'engine_version', 'api_version'] as const;
  const out: NonNullable<Provenance['workbench']> = {};
  for (const key of keys) {
    const values = distinct(present.map((w) => w[key]));
    const only = values[0];
    if (values.length === 1 && only !== undefined && present.every((w) => w[key] !== undefined)) out[key] = only;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

function relocateCase(c: CaseResult, fromDir: string, toDir: string): CaseResult {
  return {
    ...c,
    steps: c.steps.map((s) => ({
      ...s,
      artefacts: s.artefacts.map((a) => ({ ...a, path: relocate(a.path, fromDir, toDir) })),
    })),
  };
}

/** A path relative to the shard folder, made relative to the merged folder; absolute paths stay. */
export function relocate(path: string, fromDir: string, toDir: string): string {
  return isAbsolute(path) ? path : portableLink(resolve(toDir), resolve(fromDir, path));
}
