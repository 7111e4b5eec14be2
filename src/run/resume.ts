import { createHash } from 'node:crypto';
import { VERSION } from '../version.js';
import { FileHasher } from '../files/file-hash.js';
import { slashes } from '../files/portable-path.js';
import { Journal } from './journal.js';
import type { CaseResult } from '../result/result.js';
import type { RunItem } from './run-item.js';

/** Where the journal's own write failures go: the run's record of what it could not write. */
export interface RunRecord {
  lost(path: string, error: unknown): void;
}

/**
 * What the output folder's journal says about the cohort studies of a run: a study whose
 * inputs and outputs are unchanged since it last passed is not run again. The hashes of a
 * case's data files are taken once and serve both its resume key and its figures' provenance.
 */
export class Resume {
  private readonly inputs = new Map<RunItem, Promise<Record<string, string>>>();

  private constructor(
    private readonly journal: Journal | undefined,
    readonly hasher: FileHasher,
    private readonly force: boolean,
  ) {}

  /** Reads the journal when a case of the run is resumable; `force` runs every study again. */
  static async open(items: readonly RunItem[], outputDir: string, force: boolean): Promise<Resume> {
    const journal = items.some((i) => i.resumable) ? await Journal.open(outputDir) : undefined;
    return new Resume(journal, journal?.hasher ?? new FileHasher(), force);
  }

  /** Set when unreadable lines of the journal were set aside. */
  get notice(): string | undefined {
    return this.journal?.notice;
  }

  /** One line per study, at the end of a run; a journal that cannot be rewritten stays as appended. */
  async compact(notice: (message: string) => void): Promise<void> {
    await this.journal
      ?.compact()
      .catch((err: unknown) =>
        notice(`could not compact ${this.journal!.path} (${(err as Error).message}); it stays as appended`),
      );
  }

  /** The SHA-256 of each data file of a case (`missing` for one that is not there). */
  inputFiles(item: RunItem): Promise<Record<string, string>> {
    let files = this.inputs.get(item);
    if (!files) this.inputs.set(item, (files = hashFiles(item.case.inputs, this.hasher)));
    return files;
  }

  /** The hash a resumable case is recorded under; empty for the others. */
  async inputHash(item: RunItem): Promise<string> {
    return item.resumable ? hashInputs(item, await this.inputFiles(item)) : '';
  }

  /**
   * Whether the journal could hold the case as done: only then are its inputs hashed before it
   * starts. Any other case (forced, not a cohort study, new to the journal) hashes them beside
   * its first steps, which need the workbench, not the hashes.
   */
  mayBeUpToDate(item: RunItem): boolean {
    return this.journal !== undefined && item.resumable && !this.force && this.journal.has(item.resumeKey);
  }

  /**
   * The case's last result when the journal holds it as done with these inputs and its outputs
   * are as written, marked as up to date since the run that made it; undefined when it must
   * run. A study recorded without its result (by an earlier version) runs again, so that the
   * report can show it.
   */
  async upToDate(item: RunItem, inputHash: string): Promise<CaseResult | undefined> {
    if (this.journal === undefined || !item.resumable || this.force) return undefined;
    if (!(await this.journal.isUpToDate(item.resumeKey, inputHash))) return undefined;
    const last = await this.journal.result(item.resumeKey);
    if (!last || last.id !== item.info.id) return undefined;
    // Named as this run names it (the playbook may be given by another path now); the rest is as it was.
    return {
      ...last,
      name: item.info.name,
      playbook: item.info.playbook,
      upToDate: { finishedAt: this.journal.finishedAt(item.resumeKey) ?? last.upToDate?.finishedAt ?? '' },
    };
  }

  /**
   * Records a resumable case that passed, once its outputs are written. A study that runs
   * again keeps its old record until it passes: should this run be killed, whatever it
   * rewrote no longer matches the recorded hashes, so it is not taken as done.
   */
  async record(
    item: RunItem,
    inputHash: Promise<string>,
    result: CaseResult,
    outputs: ReadonlyMap<string, string>,
    record: RunRecord,
  ): Promise<void> {
    try {
      let hash: string;
      try {
        hash = await inputHash;
      } catch (err) {
        if (this.journal && item.resumable && result.status === 'passed')
          record.lost(
            this.journal.path,
            new Error(
              `${item.info.name} passed but could not be recorded (its inputs could not be hashed: ${(err as Error).message}); it runs again next time`,
            ),
          );
        return;
      }
      await this.write(item, hash, result, outputs, record);
    } finally {
      // What the case's record needed is written: its hashes need not stay for the rest of the run.
      this.inputs.delete(item);
      this.hasher.forget(outputs.keys());
    }
  }

  private async write(
    item: RunItem,
    inputHash: string,
    result: CaseResult,
    outputs: ReadonlyMap<string, string>,
    record: RunRecord,
  ): Promise<void> {
    if (!this.journal || !item.resumable || result.status !== 'passed') return;
    try {
      const files = [...item.case.inputs, ...outputs.keys()];
      // Paths with `/` on every platform: the folder reads the same wherever it is resumed.
      const written = Object.fromEntries([...outputs].map(([path, sha]) => [slashes(path), sha]));
      await this.journal.record(
        item.resumeKey,
        { inputHash, outputs: written, finishedAt: new Date().toISOString(), result },
        files,
      );
    } catch (err) {
      record.lost(
        this.journal.path,
        new Error(
          `${item.info.name} passed but could not be recorded (${(err as Error).message}); it runs again next time`,
        ),
      );
    }
  }
}

/**
 * What a study's result depends on: the playbook and its includes, the study's data files,
 * and the compiled steps (which hold the variables' values). wbplay's version is part of it,
 * since a new version may draw differently.
 */
function hashInputs(item: RunItem, files: Record<string, string>): string {
  const h = createHash('sha256');
  let text = JSON.stringify({
    wbplay: VERSION,
    sources: item.plan.sources.map((s) => s.sha256),
    steps: item.case.steps.map((s) => [s.kind, s.args]),
    study: item.case.study ?? null,
    retrieve: item.case.retrieve?.map((r) => [r.url, r.study, r.series, r.instances]) ?? null,
  });
  // A series from an archive is known by its UIDs, not by where this machine caches it: a run
  // with the cache moved (another node of a cluster, `cache:` changed) resumes all the same.
  for (const r of item.case.retrieve ?? [])
    text = text.replaceAll(JSON.stringify(r.dir).slice(1, -1), `<series ${r.series}>`);
  h.update(text);
  h.update(JSON.stringify(files));
  return h.digest('hex');
}

async function hashFiles(paths: readonly string[], hasher: FileHasher): Promise<Record<string, string>> {
  const entries = await Promise.all(paths.map(async (p) => [p, (await hasher.hash(p)) ?? 'missing'] as const));
  return Object.fromEntries(entries);
}
