import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { packageFile } from '../package-files.js';
import { CasesInFile, runOf, type CaseSpan } from '../result/case-list.js';
import {
  RESULT_VERSION,
  summaryOf,
  type CaseResult,
  type CaseSummary,
  type RunResult,
  type RunResultTree,
} from '../result/result.js';
import { JSON_REPORT_FILE } from './json.js';
import { ReportError } from './report-error.js';

/**
 * The published shape of report.json (schemas/report.schema.json, shipped with the package): the
 * one description of the file, read when a report is first read back.
 */
async function publishedSchema(): Promise<object> {
  return JSON.parse(await readFile(packageFile('schemas/report.schema.json'), 'utf8')) as object;
}

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

let validators: Promise<{ report: Validator; case: Validator }> | undefined;

function schemaValidators(): Promise<{ report: Validator; case: Validator }> {
  validators ??= publishedSchema().then((schema) => {
    const ajv = new Ajv({ allErrors: false, strict: false });
    const report = ajv.compile(schema);
    const one = ajv.getSchema(`${(schema as { $id: string }).$id}#/definitions/case`);
    if (!one) throw new Error('the report schema has no case definition');
    return { report, case: one };
  });
  return validators;
}

/** The first line of a report written for line-by-line readers ends here (see `jsonReportChunks`). */
const CASES_OPEN = '"cases":[';

/**
 * Opens the run result of a shard: `<dir>/report.json`, or the JSON file itself. A report laid
 * out a case per line (as wbplay writes it) is read line by line: each case is checked against
 * the published case schema and only its summary and place are kept; the cases are read again
 * from the file when asked for. Any other layout (a pretty-printed report) is read whole. Every
 * way it can be wrong ends in a `ReportError` that names the file (and line) and says what to do.
 */
export async function openReport(location: string): Promise<RunResult> {
  const file = (await isFolder(location)) || !location.endsWith('.json') ? join(location, JSON_REPORT_FILE) : location;
  // The cases are read again through this handle later, so a report replaced meanwhile (a merge
  // written into a shard's folder) cannot change them.
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw notFound(file, error);
  }
  let read: RunResult | undefined;
  try {
    read = await readByLines(file, handle);
  } finally {
    if (!read) await handle.close();
  }
  return read ?? runOf(await readWhole(file));
}

/** The run result as one tree: for small reports and tests. */
export async function readRunResult(location: string): Promise<RunResultTree> {
  const result = await openReport(location);
  return { ...result, cases: await result.cases.all() };
}

/** Lines of an open file with where each starts, read a buffer at a time; the handle stays open. */
async function* linesOf(handle: FileHandle): AsyncIterable<{ text: string; offset: number; bytes: number }> {
  let rest = Buffer.alloc(0);
  let offset = 0;
  const stream = handle.createReadStream({ start: 0, highWaterMark: 1 << 18, autoClose: false });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    for (let end = data.indexOf(0x0a); end >= 0; end = data.indexOf(0x0a)) {
      yield { text: data.toString('utf8', 0, end), offset, bytes: end };
      offset += end + 1;
      data = data.subarray(end + 1);
    }
    rest = Buffer.from(data);
  }
  if (rest.length > 0) yield { text: rest.toString('utf8'), offset, bytes: rest.length };
}

/**
 * A report in the line layout, or undefined when the file is laid out otherwise (the first
 * line is not a head that opens the cases).
 */
async function readByLines(file: string, handle: FileHandle): Promise<RunResult | undefined> {
  const check = await schemaValidators();
  const summaries: CaseSummary[] = [];
  const spans: CaseSpan[] = [];
  let head: Record<string, unknown> | undefined;
  let tail: Record<string, unknown> | undefined;
  let line = 0;
  let expectMore = true;
  for await (const { text: raw, offset, bytes } of linesOf(handle)) {
    line++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (head === undefined) {
      if (!text.startsWith('{') || !text.endsWith(CASES_OPEN)) return undefined;
      const parsed = parseOr(`${text}]}`);
      if (!isObject(parsed)) return undefined;
      checkVersion(file, parsed.version);
      head = parsed;
      continue;
    }
    if (tail !== undefined) {
      if (text.trim() === '') continue;
      throw invalid(file, line, 'has more after the end of the report');
    }
    if (text.startsWith(']')) {
      if (summaries.length > 0 && expectMore)
        throw invalid(file, line - 1, 'ends its last case with a comma, so the cases do not close');
      const parsed = parseOr(`{${CASES_OPEN}${text}`);
      if (!isObject(parsed)) throw invalid(file, line, 'does not close the report as JSON (`],"summary":...}`)');
      tail = parsed;
      continue;
    }
    if (!expectMore) throw invalid(file, line - 1, 'has a case line without the comma that separates it from the next');
    expectMore = text.endsWith(',');
    const json = expectMore ? text.slice(0, -1) : text;
    const position = summaries.length;
    const c = readCase(file, line, position, json, check.case);
    summaries.push(summaryOf(c));
    spans.push({ offset, length: bytes - (raw.length - json.length) });
  }
  if (head === undefined) return undefined;
  if (tail === undefined)
    throw new ReportError(
      'REPORT_INVALID',
      `${file} ends at line ${line} before its cases close: it is truncated`,
      'run that shard again',
    );
  const rest: unknown = { ...head, cases: [], ...tail };
  if (!check.report(rest)) throw notAResult(file, check.report.errors?.[0]);
  return { ...(rest as RunResultTree), cases: new CasesInFile(file, summaries, spans, handle) };
}

/** One case line, checked against the published case schema. */
function readCase(file: string, line: number, position: number, json: string, validate: Validator): CaseResult {
  let c: unknown;
  try {
    c = JSON.parse(json);
  } catch (error) {
    throw invalid(file, line, `is not a case in JSON: ${(error as Error).message}`);
  }
  if (!validate(c)) {
    const first = validate.errors?.[0];
    throw invalid(
      file,
      line,
      `is not a wbplay case result: at /cases/${position}${first?.instancePath ?? ''}, ${first?.message ?? 'unexpected content'}`,
    );
  }
  return c as CaseResult;
}

/** A report in another layout: parsed whole and checked against the published schema. */
async function readWhole(file: string): Promise<RunResultTree> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw notFound(file, error);
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
  if (isObject(data)) checkVersion(file, data.version);
  const { report } = await schemaValidators();
  if (!report(data)) throw notAResult(file, report.errors?.[0]);
  return data as RunResultTree;
}

function checkVersion(file: string, version: unknown): void {
  if (typeof version === 'number' && version !== RESULT_VERSION) {
    throw new ReportError(
      'REPORT_VERSION',
      `${file} has result version ${version}; this wbplay reads version ${RESULT_VERSION}`,
      'merge reports with the wbplay version that wrote them',
    );
  }
}

function notAResult(file: string, first: ErrorObject | undefined): ReportError {
  const where = first?.instancePath || '/';
  return new ReportError(
    'REPORT_INVALID',
    `${file} is not a wbplay run result: at ${where}, ${first?.message ?? 'unexpected content'}`,
    `give a ${JSON_REPORT_FILE} written by \`wbplay run\``,
  );
}

function invalid(file: string, line: number, what: string): ReportError {
  return new ReportError('REPORT_INVALID', `${file}:${line} ${what}`, 'the file may be damaged; run that shard again');
}

function notFound(file: string, error: unknown): ReportError {
  const why =
    (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? 'does not exist'
      : `cannot be read (${(error as Error).message})`;
  return new ReportError(
    'REPORT_NOT_FOUND',
    `${file} ${why}`,
    `give the output folder of a finished run (it holds ${JSON_REPORT_FILE}; keep the json reporter on)`,
  );
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
