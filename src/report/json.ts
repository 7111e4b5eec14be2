import { join } from 'node:path';
import { writeChunksAtomic } from '../files/atomic-write.js';
import type { RunResult } from '../result/result.js';
import type { Reporter } from '../result/reporter.js';

export const JSON_REPORT_FILE = 'report.json';

/**
 * The result tree as it is: its `version` field says which shape a reader gets. The text is
 * laid out for readers that go line by line: the first line holds every field before the
 * cases and opens `"cases":[`, then one case per line, then one line with the rest (summary,
 * figures, ...). It is one JSON document all the same, for readers that take it whole.
 */
export async function* jsonReportChunks(result: RunResult): AsyncIterable<string> {
  const { head, tail } = split(result);
  yield `${head}\n`;
  const count = result.cases.summaries.length;
  let position = 0;
  for await (const c of result.cases) {
    position++;
    yield `${JSON.stringify(c)}${position < count ? ',' : ''}\n`;
  }
  yield `${tail}\n`;
}

/** The first line (`{...,"cases":[`) and the last (`],...}`) of the report of `result`. */
function split(result: RunResult): { head: string; tail: string } {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  let seen = false;
  // The fields keep the order the result has them, so the file reads like the tree.
  for (const [key, value] of Object.entries(result)) {
    if (key === 'cases') seen = true;
    else (seen ? after : before)[key] = value;
  }
  const head = JSON.stringify(before);
  const tail = JSON.stringify(after);
  return {
    head: `${head === '{}' ? '{' : `${head.slice(0, -1)},`}"cases":[`,
    tail: `]${tail === '{}' ? '}' : `,${tail.slice(1)}`}`,
  };
}

export async function renderJsonReport(result: RunResult): Promise<string> {
  const chunks: string[] = [];
  for await (const chunk of jsonReportChunks(result)) chunks.push(chunk);
  return chunks.join('');
}

export async function writeJsonReport(result: RunResult, outputDir: string): Promise<string> {
  const path = join(outputDir, JSON_REPORT_FILE);
  await writeChunksAtomic(path, jsonReportChunks(result));
  return path;
}

/** Writes `<out>/report.json` once the run is over; it is also what `merge-reports` reads back. */
export class JsonReporter implements Reporter {
  readonly name = 'json';
  constructor(private readonly outputDir: string) {}

  async onRunEnd(result: RunResult): Promise<void> {
    await writeJsonReport(result, this.outputDir);
  }
}
