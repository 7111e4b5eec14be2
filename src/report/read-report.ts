import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { RESULT_VERSION, type RunResult } from '../result/result.js';
import { JSON_REPORT_FILE } from './json.js';
import { ReportError } from './report-error.js';

/**
 * The published shape of report.json (schemas/report.schema.json, shipped with the package): the
 * one description of the file, read when a report is first read back.
 */
async function publishedSchema(): Promise<object> {
  return JSON.parse(await readFile(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')) as object;
}

let validator: (((data: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined;

/**
 * Reads the run result of a shard: `<dir>/report.json`, or the JSON file itself. Every way it
 * can be wrong ends in a `ReportError` that names the file and says what to do.
 */
export async function readRunResult(location: string): Promise<RunResult> {
  // A shard is named by its output folder; a path to a .json file is taken as the report itself.
  const file = (await isFolder(location)) || !location.endsWith('.json') ? join(location, JSON_REPORT_FILE) : location;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'does not exist'
        : `cannot be read (${(error as Error).message})`;
    throw new ReportError(
      'REPORT_NOT_FOUND',
      `${file} ${why}`,
      `give the output folder of a finished run (it holds ${JSON_REPORT_FILE}; keep the json reporter on)`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ReportError(
      'REPORT_INVALID',
      `${file} is not valid JSON: ${(error as Error).message}`,
      'the file may be truncated; run that shard again',
    );
  }
  const version = (data as { version?: unknown } | null)?.version;
  if (typeof data === 'object' && data !== null && typeof version === 'number' && version !== RESULT_VERSION) {
    throw new ReportError(
      'REPORT_VERSION',
      `${file} has result version ${version}; this wbplay reads version ${RESULT_VERSION}`,
      'merge reports with the wbplay version that wrote them',
    );
  }
  validator ??= new Ajv({ allErrors: false, strict: false }).compile(await publishedSchema());
  if (!validator(data)) {
    const first = validator.errors?.[0];
    const where = first?.instancePath || '/';
    throw new ReportError(
      'REPORT_INVALID',
      `${file} is not a wbplay run result: at ${where}, ${first?.message ?? 'unexpected content'}`,
      `give a ${JSON_REPORT_FILE} written by \`wbplay run\``,
    );
  }
  return data as RunResult;
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
