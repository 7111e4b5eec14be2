import { readFileSync } from 'node:fs';
import type { ForeachContext, ManifestOptions } from './foreach-source.js';

export type { ManifestOptions };
import { CSV_DELIMITERS, isProblem, type CsvDelimiter, type Manifest, type ManifestProblem } from './manifest.js';
import { readCsvManifest } from './manifest-csv.js';
import { readXlsxManifest } from './manifest-xlsx.js';

/** The options of a table manifest under `foreach`, beside its file. */
/** Which source each option belongs to, for the error when it is given to another. */
const OPTION_OF = { delimiter: 'csv', sheet: 'xlsx' } as const;

/** An option given to a source it does not apply to (`sheet` with a CSV file), reported at the option. */
export function misplacedOption(source: string, raw: ManifestOptions, ctx: ForeachContext): boolean {
  for (const [option, owner] of Object.entries(OPTION_OF) as [keyof ManifestOptions, string][]) {
    if (raw[option] === undefined || source === owner) continue;
    ctx.error(
      'EXCLUSIVE_FIELDS',
      [option],
      `\`${option}\` is an option of \`${owner}\` manifests, not of \`${source}\``,
      `remove \`${option}\`${option === 'sheet' ? '' : ', or read the studies from a CSV file'}`,
    );
    return true;
  }
  return false;
}

/**
 * The records of a CSV or workbook manifest, or undefined after reporting why not: at the
 * manifest's line (and column) when the file is at fault, at the `foreach` key when the
 * playbook is.
 */
export function readTableManifest(
  source: 'csv' | 'xlsx',
  file: string,
  raw: ManifestOptions,
  ctx: ForeachContext,
): Record<string, unknown>[] | undefined {
  let read: Manifest | ManifestProblem;
  let text: string | undefined;
  if (source === 'csv') {
    const delimiter = raw.delimiter;
    if (delimiter !== undefined && !(CSV_DELIMITERS as readonly string[]).includes(delimiter)) {
      ctx.error(
        'BAD_VALUE',
        ['delimiter'],
        `the delimiter ${JSON.stringify(delimiter)} is not one of ",", ";" or "\\t"`,
        'leave `delimiter` out to take it from the header line',
      );
      return undefined;
    }
    try {
      text = decodeCsv(readFileSync(file));
    } catch (err) {
      ctx.error('READ_ERROR', [source], `the study manifest cannot be read: ${(err as Error).message}`);
      return undefined;
    }
    read = readCsvManifest(text, delimiter as CsvDelimiter | undefined);
  } else read = readXlsxManifest(file, raw.sheet);
  if (!isProblem(read)) return read.records;
  if (read.line === undefined) ctx.error('FOREACH_SOURCE', [read.key ?? source], read.message, read.hint);
  else
    ctx.fileError(
      'FOREACH_SOURCE',
      { file, line: read.line, col: read.col ?? 1, ...(text !== undefined ? { text } : {}) },
      read.message,
      read.hint,
    );
  return undefined;
}

/**
 * A CSV file's text: UTF-8 (with or without a byte-order mark) when its bytes are UTF-8, else
 * Windows-1252, which Excel's plain "CSV" saves in on Western European Windows: a study named
 * Größe keeps its name instead of turning into replacement characters.
 */
export function decodeCsv(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}
