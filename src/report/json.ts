import { join } from 'node:path';
import { writeFileAtomic } from '../files/atomic-write.js';
import type { RunResult } from '../result/result.js';
import type { Reporter } from '../result/reporter.js';

export const JSON_REPORT_FILE = 'report.json';

/** The result tree as it is: its `version` field says which shape a reader gets. */
export function renderJsonReport(result: RunResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

export async function writeJsonReport(result: RunResult, outputDir: string): Promise<string> {
  const path = join(outputDir, JSON_REPORT_FILE);
  await writeFileAtomic(path, renderJsonReport(result));
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
