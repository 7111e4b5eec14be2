/**
 * A study manifest read from a table (a CSV file or a workbook's sheet): the shape both readers
 * give, and the checks both share, so a CSV export and the workbook it came from say the same
 * thing about the same mistake.
 */
export interface Manifest {
  /** The header's names, in order. */
  columns: string[];
  records: Record<string, unknown>[];
  /** The line (CSV) or row (workbook) each record was read from. */
  lines: number[];
}

/** What is wrong with a manifest, and where: a line (and column) of the file, or a key of `foreach`. */
export interface ManifestProblem {
  message: string;
  hint: string;
  /** 1-based line of a CSV file or row of a sheet; absent when the problem is the playbook's `key`. */
  line?: number;
  col?: number;
  key?: string;
}

export function isProblem(read: Manifest | ManifestProblem): read is ManifestProblem {
  return 'message' in read;
}

/** The delimiters a manifest may use: what Excel writes in English, in most of Europe, and as "Text (Tab delimited)". */
export const CSV_DELIMITERS = [',', ';', '\t'] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

/** A delimiter as a person names it. */
export function delimiterName(d: string): string {
  return d === '\t' ? 'tabs' : `\`${d}\``;
}

const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const DECIMAL_COMMA = /^-?(\d+,\d*|,\d+)([eE][-+]?\d+)?$/;

/** A cell given as text: a number when it reads as one (with a decimal comma where `;` separates fields). */
export function cellNumber(text: string, decimalComma: boolean): string | number {
  const t = text.trim();
  if (NUMBER.test(t)) return Number(t);
  if (decimalComma && DECIMAL_COMMA.test(t)) return Number(t.replace(',', '.'));
  return text;
}

export interface TableOptions {
  /** The CSV delimiter the header was split with (none for a workbook). */
  delimiter?: CsvDelimiter;
  /** The header's line or row. */
  headerLine: number;
  /** The column of the file a header cell starts at, for errors that point at one. */
  colOf(index: number): number;
  /** How the file's lines are named in messages: "line" in a CSV, "row" in a sheet. */
  unit: 'line' | 'row';
}

const isBlank = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/**
 * Records by the header's names. A row of empty cells is skipped (Excel writes `;;;` for one);
 * a column with an empty name is ignored when all its cells are empty too (a trailing
 * delimiter). A repeated column name, or no `name` and no `path` column, is an error.
 */
export function tableOf(
  header: readonly unknown[],
  rows: readonly (readonly unknown[])[],
  lines: readonly number[],
  options: TableOptions,
): Manifest | ManifestProblem {
  const names = header.map((h) => (isBlank(h) ? '' : String(h).trim()));
  const seen = new Map<string, number>();
  for (const [i, name] of names.entries()) {
    if (name === '') {
      const used = rows.findIndex((r) => !isBlank(r[i]));
      if (used >= 0)
        return {
          message: `column ${i + 1} has no name in the header but holds values (${options.unit} ${lines[used]})`,
          hint: 'give the column a name in the header',
          line: options.headerLine,
          col: options.colOf(i),
        };
      continue;
    }
    const first = seen.get(name);
    if (first !== undefined)
      return {
        message: `the column \`${name}\` is named twice (columns ${first + 1} and ${i + 1})`,
        hint: 'rename one of them: a study has one value per name',
        line: options.headerLine,
        col: options.colOf(i),
      };
    seen.set(name, i);
  }
  const columns = names.filter((n) => n !== '');
  if (!seen.has('name') && !seen.has('path')) return noStudyColumn(columns, options);
  const records: Record<string, unknown>[] = [];
  const kept: number[] = [];
  for (const [r, row] of rows.entries()) {
    if (row.every(isBlank)) continue;
    const record: Record<string, unknown> = {};
    for (const [i, name] of names.entries()) if (name !== '') record[name] = row[i] ?? '';
    if (isBlank(record.name) && isBlank(record.path))
      return {
        message: `this study has neither a name nor a path`,
        hint: 'fill in its `name` or `path` cell, or delete the row',
        line: lines[r] ?? options.headerLine,
      };
    records.push(record);
    kept.push(lines[r] ?? 0);
  }
  return { columns, records, lines: kept };
}

/**
 * No `name` and no `path` column: name what was read, and when a header cell holds several of
 * the other delimiters, the delimiter that would split it (a `;` file read with `,`, or a CSV
 * line pasted into one cell of a sheet).
 */
function noStudyColumn(columns: readonly string[], options: TableOptions): ManifestProblem {
  const read =
    columns.length === 0
      ? 'no column'
      : `${columns.length} column${columns.length === 1 ? '' : 's'}: ${columns.map((c) => `\`${c}\``).join(', ')}`;
  let hint = "name a column `path` (resolved against the manifest's folder) or `name` (the study's name)";
  for (const cell of columns) {
    const split = CSV_DELIMITERS.filter((d) => d !== options.delimiter)
      .map((d) => ({ d, n: cell.split(d).length - 1 }))
      .sort((a, b) => b.n - a.n)[0];
    if (!split || split.n < 1) continue;
    const parts = cell.split(split.d).map((p) => p.trim().replace(/^"|"$/g, ''));
    if (!parts.includes('name') && !parts.includes('path') && split.n < 2) continue;
    hint =
      options.unit === 'line'
        ? `the header cell \`${cell}\` holds ${delimiterName(split.d)}: \`delimiter: ${JSON.stringify(split.d)}\` would split it into ${parts.map((p) => `\`${p}\``).join(', ')}`
        : `the header cell \`${cell}\` holds ${delimiterName(split.d)}: the sheet holds CSV lines in one column; split it with Excel's Text to Columns (delimiter ${delimiterName(split.d)}), or save it as CSV and read it with \`csv:\``;
    break;
  }
  return {
    message: `the manifest has no \`name\` or \`path\` column; it read ${read}`,
    hint,
    line: options.headerLine,
    col: 1,
  };
}
