import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { isProblem, tableOf, type Manifest, type ManifestProblem } from './manifest.js';

/**
 * exceljs reads a workbook only asynchronously, and the compiler is synchronous (a plan is
 * plain data made in one pass, and `loadPlaybook` returns it). So the workbook is read in a
 * worker thread while this thread waits on a shared flag: the compiler stays as it is, and only
 * a playbook with a workbook manifest pays for the thread and for loading exceljs.
 *
 * The worker hands over each cell's value as exceljs gives it (numbers, strings, dates, formula
 * results, rich text); what they mean for a study is decided here, in typed code.
 */
const WORKER = `
const { workerData } = require('node:worker_threads');
const { file, sheet, exceljs, port, flag } = workerData;
(async () => {
  let answer;
  try {
    const Workbook = require(exceljs);
    const workbook = new Workbook();
    await workbook.xlsx.readFile(file);
    const sheets = workbook.worksheets.map((w) => w.name);
    const ws = sheet === undefined ? workbook.worksheets[0] : workbook.worksheets.find((w) => w.name === sheet);
    const rows = [];
    if (ws)
      ws.eachRow({ includeEmpty: false }, (row, n) => {
        const cells = [];
        row.eachCell({ includeEmpty: false }, (cell, col) => cells.push([col, cell.value]));
        rows.push([n, cells]);
      });
    answer = { sheets, sheet: ws ? ws.name : undefined, rows };
  } catch (err) {
    answer = { error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(answer);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
})();
`;

/** A reading that takes longer than this has gone wrong (a 10,000-row sheet takes about a second). */
const TIMEOUT_MS = 120_000;

interface WorkerAnswer {
  error?: string;
  sheets?: string[];
  sheet?: string;
  rows?: [number, [number, unknown][]][];
}

/**
 * The studies of one sheet (the first when none is named): the first row is the header,
 * numbers stay numbers, dates become ISO dates, a formula gives the value Excel saved with it,
 * empty rows are skipped.
 */
export function readXlsxManifest(file: string, sheet: string | undefined): Manifest | ManifestProblem {
  const kind = notAWorkbook(file);
  if (kind !== undefined)
    return {
      message: `the workbook is not an Excel workbook (.xlsx): it is ${kind}`,
      hint: 'open it in Excel or LibreOffice and save it as an Excel workbook (.xlsx)',
      line: 1,
    };
  const answer = readInWorker(file, sheet);
  if (answer.error !== undefined)
    return {
      message: `the workbook cannot be read: ${answer.error}`,
      hint: 'save it from Excel or LibreOffice as an Excel workbook (.xlsx)',
      line: 1,
    };
  const shown = answer.sheets?.map((s) => `\`${s}\``).join(', ') ?? '';
  if (answer.sheet === undefined)
    return sheet === undefined
      ? { message: 'the workbook has no sheet', hint: 'add a sheet of studies', line: 1 }
      : { message: `the workbook has no sheet \`${sheet}\``, hint: `its sheets are ${shown}`, key: 'sheet' };
  const rows = answer.rows ?? [];
  const [headerRow, ...studyRows] = rows;
  if (!headerRow)
    return {
      message: `the sheet \`${answer.sheet}\` is empty`,
      hint:
        answer.sheets && answer.sheets.length > 1
          ? `name the sheet of studies with \`sheet\`: ${shown}`
          : 'write a header row, e.g. name, path',
      line: 1,
    };
  const values: unknown[][] = [];
  for (const [row, cells] of rows) {
    const out: unknown[] = [];
    for (const [col, raw] of cells) {
      const v = cellValue(raw);
      if (typeof v === 'object')
        return { ...v, message: `cell ${columnName(col)}${row} of \`${answer.sheet}\`: ${v.message}`, line: row, col };
      out[col - 1] = v;
    }
    values.push(out);
  }
  const width = Math.max(0, ...values.map((v) => v.length));
  const dense = values.map((v) => Array.from({ length: width }, (_, i) => v[i] ?? ''));
  const table = tableOf(
    dense[0] ?? [],
    dense.slice(1),
    studyRows.map(([n]) => n),
    {
      headerLine: headerRow[0],
      colOf: (i) => i + 1,
      unit: 'row',
    },
  );
  return isProblem(table) && table.line !== undefined
    ? { ...table, message: `${table.message} (sheet \`${answer.sheet}\`, row ${table.line})` }
    : table;
}

/** What a file is when it is not an .xlsx (a zip archive): the mistakes a user makes. */
function notAWorkbook(file: string): string | undefined {
  const head = Buffer.alloc(8);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    readSync(fd, head, 0, 8, 0);
  } catch (err) {
    return `unreadable (${(err as Error).message})`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (head.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))) return undefined;
  if (head.equals(Buffer.from('d0cf11e0a1b11ae1', 'hex'))) return 'an Excel 97-2003 workbook (.xls)';
  return 'not a zip archive, as every .xlsx is (a CSV file or a text file?)';
}

function readInWorker(file: string, sheet: string | undefined): WorkerAnswer {
  // exceljs's Workbook alone: the package entry also loads the streaming writers (archiver and
  // the rest): 1.2 s against 0.5 s to load, measured side by side on a busy 2-core machine.
  const exceljs = createRequire(import.meta.url).resolve('exceljs/lib/doc/workbook.js');
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { file, sheet, exceljs, port: port2, flag },
    transferList: [port2],
  });
  try {
    if (Atomics.wait(flag, 0, 0, TIMEOUT_MS) === 'timed-out')
      return { error: `no answer from the reader in ${TIMEOUT_MS / 1000} s` };
    const message = receiveMessageOnPort(port1);
    return (message?.message as WorkerAnswer | undefined) ?? { error: 'the reader stopped without an answer' };
  } finally {
    port1.close();
    void worker.terminate();
  }
}

type Cell = string | number | boolean | { message: string; hint: string };

/** A cell's value as a study field; an object is a problem with the cell. */
function cellValue(v: unknown): Cell {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Date) return isoDate(v);
  if (typeof v !== 'object') return String(v);
  const o = v as Record<string, unknown>;
  if ('formula' in o || 'sharedFormula' in o) {
    if (o.result === undefined)
      return {
        message: `the formula =${String(o.formula ?? o.sharedFormula)} has no saved value`,
        hint: 'open and save the workbook in Excel or LibreOffice, which store the value of every formula',
      };
    return cellValue(o.result);
  }
  if (Array.isArray(o.richText)) return o.richText.map((r: { text?: string }) => r.text ?? '').join('');
  if ('hyperlink' in o) return cellValue(o.text);
  if ('error' in o)
    return {
      message: `the cell holds the error ${String(o.error)}`,
      hint: 'fix the cell in the workbook, or delete its row',
    };
  return String(v);
}

/**
 * A workbook's date as ISO 8601, without a time zone (a sheet has none): the date alone when
 * it has no time of day. exceljs gives the sheet's wall-clock time as UTC.
 */
export function isoDate(d: Date): string {
  const iso = d.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, iso.endsWith('.000Z') ? 19 : 23);
}

/** Column 1 is A, 27 is AA. */
export function columnName(col: number): string {
  let name = '';
  for (let n = col; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}
