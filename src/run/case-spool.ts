import { mkdir, open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { FileWriteError, injectedFault } from '../files/atomic-write.js';
import { CasesInFile, type CaseSpan } from '../result/case-list.js';
import { summaryOf, type CaseList, type CaseResult, type CaseSummary } from '../result/result.js';

/** The run's case results as they end, one JSON line each, while the run lasts. */
export const CASE_SPOOL_FILE = 'wbplay-cases.jsonl';

/**
 * Where a run puts each case's result as it ends, so memory holds only the cases in flight
 * and a summary of each ended one, however large the cohort. Lines are in the order cases
 * ended; the list it gives at the end reads them back in case order. Once the run has ended
 * the file leaves the output folder (no second copy of report.json stays behind, and the
 * next run in the folder starts its own); the list reads it through the handle still open.
 */
export class CaseSpool {
  private readonly summaries: CaseSummary[];
  private readonly spans: CaseSpan[];
  private size = 0;
  /** Writes go one after another, so a slow disk holds back buffers, not the order of lines. */
  private tail: Promise<void> = Promise.resolve();
  /** Why the file stopped taking cases; from then on they are held in memory instead. */
  failure: Error | undefined;
  private readonly held = new Map<number, string>();

  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
    count: number,
  ) {
    this.summaries = new Array<CaseSummary>(count);
    this.spans = new Array<CaseSpan>(count);
  }

  /** A fresh spool in the output folder: the last run's is replaced. */
  static async create(outputDir: string, count: number): Promise<CaseSpool> {
    await mkdir(outputDir, { recursive: true });
    const file = join(outputDir, CASE_SPOOL_FILE);
    return new CaseSpool(file, await open(file, 'w+'), count);
  }

  /** Takes the result of the case at `position` (in case order); the result is not kept. */
  add(position: number, result: CaseResult): void {
    const text = JSON.stringify(result);
    const bytes = Buffer.from(`${text}\n`, 'utf8');
    const offset = this.size;
    this.size += bytes.length;
    this.summaries[position] = summaryOf(result);
    this.spans[position] = { offset, length: bytes.length - 1 };
    this.tail = this.tail.then(async () => {
      if (this.failure) {
        this.held.set(position, text);
        return;
      }
      try {
        injectedFault(this.file);
        const { bytesWritten } = await this.handle.write(bytes, 0, bytes.length, offset);
        // A full disk may take part of a line and say nothing: that is a failure too.
        if (bytesWritten !== bytes.length)
          throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      } catch (err) {
        // A full disk must not lose the results of the cases that ran: they stay in memory.
        this.failure = FileWriteError.of(this.file, err);
        this.held.set(position, text);
      }
    });
  }

  /** Once every case was added: the cases in case order, read from the spool when asked for. */
  async finish(): Promise<CaseList> {
    await this.tail;
    const missing = this.spans.findIndex((s) => s === undefined);
    if (missing >= 0) {
      await this.discard();
      throw new Error(`case ${missing + 1} of the run has no result`);
    }
    const cases = new CasesInFile(this.file, this.summaries, this.spans, this.handle, this.held);
    // Where a file cannot be removed while open, it stays until the next run replaces it.
    await unlink(this.file).catch(() => undefined);
    return cases;
  }

  /** Closes and removes the spool of a run that failed before it ended. */
  async discard(): Promise<void> {
    await this.tail;
    await this.handle.close().catch(() => undefined);
    await unlink(this.file).catch(() => undefined);
  }
}
