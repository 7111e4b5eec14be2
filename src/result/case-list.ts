import { SpanReader, type TextSpan } from '../files/text-span.js';
import type { FileHandle } from 'node:fs/promises';
import {
  summaryOf,
  type CaseList,
  type CaseReader,
  type CaseResult,
  type CaseSummary,
  type RunResult,
  type RunResultTree,
} from './result.js';

/** The common part of every list: iteration, picking and `all` over a reader. */
export abstract class ReadableCases implements CaseList {
  abstract readonly summaries: readonly CaseSummary[];
  abstract reader(): Promise<CaseReader>;

  async *pick(positions: Iterable<number>): AsyncIterable<CaseResult> {
    const reader = await this.reader();
    try {
      for (const position of positions) yield await reader.read(position);
    } finally {
      await reader.close();
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<CaseResult> {
    return this.pick(this.summaries.keys())[Symbol.asyncIterator]();
  }

  async all(): Promise<CaseResult[]> {
    const cases: CaseResult[] = [];
    for await (const c of this) cases.push(c);
    return cases;
  }
}

/** Cases that are in memory already: a report read whole, or a test's. */
class CasesInMemory extends ReadableCases {
  readonly summaries: readonly CaseSummary[];
  constructor(private readonly cases: readonly CaseResult[]) {
    super();
    this.summaries = cases.map(summaryOf);
  }

  reader(): Promise<CaseReader> {
    return Promise.resolve({
      // A copy, as a case read from a file would be: a caller may change what it gets.
      read: (position) => Promise.resolve(structuredClone(this.cases[position] as CaseResult)),
      close: () => Promise.resolve(),
    });
  }
}

export function casesInMemory(cases: readonly CaseResult[]): CaseList {
  return new CasesInMemory(cases);
}

/** A tree as a run result, e.g. a report read whole. */
export function runOf(tree: RunResultTree): RunResult {
  return { ...tree, cases: casesInMemory(tree.cases) };
}

/** Where one case's JSON text lies in a file. */
export type CaseSpan = TextSpan;

/** A list's open file is closed once nothing can read the list any more. */
const closeWhenDropped = new FinalizationRegistry<FileHandle>((handle) => {
  void handle.close().catch(() => undefined);
});

/**
 * Cases whose JSON texts lie in a file at known places (the case lines of a report.json, or a
 * run's spool), read through the file's handle, which stays open as long as the list: the
 * places stay right even when the file is replaced or removed by name (a merge written into a
 * shard's own folder, the next run in the same folder).
 */
export class CasesInFile extends ReadableCases {
  constructor(
    readonly file: string,
    readonly summaries: readonly CaseSummary[],
    private readonly spans: readonly CaseSpan[],
    private readonly handle: FileHandle,
    /** The JSON texts of cases the file could not take (a full disk), kept here instead. */
    private readonly held: ReadonlyMap<number, string> = new Map(),
  ) {
    super();
    closeWhenDropped.register(this, handle);
  }

  reader(): Promise<CaseReader> {
    const texts = new SpanReader(this.handle, this.file);
    return Promise.resolve({
      read: async (position) => {
        const kept = this.held.get(position);
        if (kept !== undefined) return JSON.parse(kept) as CaseResult;
        const span = this.spans[position];
        if (!span) throw new RangeError(`no case at position ${position} of ${this.file}`);
        return JSON.parse(await texts.read(span)) as CaseResult;
      },
      // The handle is the list's, not the pass's.
      close: () => Promise.resolve(),
    });
  }
}
