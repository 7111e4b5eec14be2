import { CsvError, parse } from 'csv-parse/sync';
import {
  cellNumber,
  CSV_DELIMITERS,
  delimiterName,
  tableOf,
  type CsvDelimiter,
  type Manifest,
  type ManifestProblem,
} from './manifest.js';

/**
 * Reads a CSV manifest with csv-parse: a byte-order mark and CRLF are what Excel writes, empty
 * lines are skipped, and a ragged row or an unclosed quote is an error at its line rather than
 * a study with shifted fields. With `;` between fields a decimal comma reads as a number, as
 * Excel in a German or French locale writes them.
 */
export function readCsvManifest(text: string, given?: CsvDelimiter): Manifest | ManifestProblem {
  const body = text.replace(/^\uFEFF/, '');
  const delimiter = given ?? detectDelimiter(body);
  // The line each record starts on: csv-parse counts the line a record ends on, and the empty
  // lines it skipped, so a record starts after the previous one and the empty lines since.
  let endOfLast = 0;
  let emptyBefore = 0;
  const starts: number[] = [];
  let records: string[][];
  try {
    records = parse(body, {
      delimiter,
      // A file edited in more than one editor may end its lines both ways.
      record_delimiter: ['\r\n', '\n', '\r'],
      skip_empty_lines: true,
      on_record: (record: string[], info) => {
        starts.push(endOfLast + 1 + (info.empty_lines - emptyBefore));
        endOfLast = info.lines;
        emptyBefore = info.empty_lines;
        return record;
      },
    }) as string[][];
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    const empty = typeof err.empty_lines === 'number' ? err.empty_lines - emptyBefore : 0;
    const problem = csvProblem(err, endOfLast + 1 + empty, delimiter, starts.length === 0);
    // A row that does not fit a header split with the wrong delimiter: say so, not "quote it".
    const other = detectDelimiter(body);
    if (given !== undefined && other !== given && problem.message.startsWith('this row has'))
      problem.hint = `the header line is split by ${delimiterName(other)}, not ${delimiterName(given)}: \`delimiter: ${JSON.stringify(other)}\` (or none, to take it from the header) would read it`;
    return problem;
  }
  const header = records[0];
  if (!header) return { message: 'the manifest is empty', hint: 'write a header line, e.g. `name,path`', line: 1 };
  const decimalComma = delimiter === ';';
  const rows = records.slice(1).map((r) => r.map((cell) => cellNumber(cell, decimalComma)));
  const cols = headerColumns(body, delimiter);
  return tableOf(header, rows, starts.slice(1), {
    delimiter,
    headerLine: starts[0] ?? 1,
    colOf: (i) => cols[i] ?? 1,
    unit: 'line',
  });
}

/**
 * The delimiter of the header line: the one of `,` `;` and tab that occurs most often outside
 * quotes (a comma when none does, a one-column manifest).
 */
export function detectDelimiter(text: string): CsvDelimiter {
  const counts = new Map<CsvDelimiter, number>(CSV_DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const c of text) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && counts.has(c as CsvDelimiter))
      counts.set(c as CsvDelimiter, counts.get(c as CsvDelimiter)! + 1);
  }
  let best: CsvDelimiter = ',';
  for (const d of CSV_DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return best;
}

/** csv-parse's error as the manifest's problem at the line of the record it was reading. */
function csvProblem(err: CsvError, line: number, delimiter: CsvDelimiter, inHeader: boolean): ManifestProblem {
  const shown = delimiterName(delimiter);
  switch (err.code) {
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH':
    case 'CSV_RECORD_INCONSISTENT_COLUMNS': {
      const { expected, got } = fieldCounts(err);
      return {
        message: `this row has ${got} field${got === 1 ? '' : 's'} but the header has ${expected}`,
        hint: `give every row one field per column, separated by ${shown}; quote a field that holds ${shown}`,
        line,
      };
    }
    case 'CSV_QUOTE_NOT_CLOSED':
      return {
        message: `a quoted field ${inHeader ? 'in the header ' : ''}opens on this line and is never closed`,
        hint: 'close the quote; a quote inside a quoted field is written twice ("")',
        line,
      };
    case 'INVALID_OPENING_QUOTE':
    case 'CSV_INVALID_CLOSING_QUOTE':
      return {
        message: 'a quote in the middle of a field',
        hint: 'quote the whole field and write the quote inside it twice ("")',
        line: typeof err.lines === 'number' ? err.lines : line,
      };
    default:
      return { message: `the manifest is not valid CSV: ${err.message}`, hint: 'fix the CSV at this line', line };
  }
}

function fieldCounts(err: CsvError): { expected: number; got: number } {
  const m = /expect (\d+), got (\d+)/.exec(err.message);
  return { expected: Number(m?.[1] ?? 0), got: Number(m?.[2] ?? 0) };
}

/** The 1-based column of the header line each cell starts at. */
function headerColumns(text: string, delimiter: CsvDelimiter): number[] {
  const cols = [1];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && c === delimiter) cols.push(i + 2);
  }
  return cols;
}
