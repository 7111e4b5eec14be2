// One line of the resume journal: its shape, how it is read, and what of it is trusted.
import type { TextSpan } from '../files/text-span.js';
import type { HashRecord } from '../files/file-hash.js';
import type { CaseResult } from '../result/result.js';

export interface StudyRecord {
  /** Hash of everything the study's result depends on: playbook and includes, data, vars. */
  inputHash: string;
  /** Output files (absolute paths) and their SHA-256. */
  outputs: Record<string, string>;
  finishedAt: string;
  /**
   * The study's result as the run that made it reported it: an up-to-date study is reported
   * with it, so a resumed run's report is the record of the whole cohort. Lines of earlier
   * versions have none.
   */
  result?: CaseResult;
}

/** One line of the journal: a finished study, and what its files looked like when hashed. */
export interface JournalLine extends StudyRecord {
  study: string;
  files?: Record<string, HashRecord>;
}

/** Bytes of the lines at `spans` with their newlines: the file's size when it holds nothing else. */
export function totalLength(spans: ReadonlyMap<string, TextSpan>): number {
  let n = 0;
  for (const span of spans.values()) n += span.length + 1;
  return n;
}

/**
 * A line's record without its result, which a line holds last (`record` writes it so): only
 * the part before it is parsed. Undefined for a line that is not a study's record.
 */
export function parseHead(text: string): JournalLine | undefined {
  // Inside a string a quote is escaped, and every key before the result is a path or a fixed
  // name, so the first `,"result":` is where the result starts.
  const at = text.indexOf(',"result":');
  try {
    const line = JSON.parse(at >= 0 ? `${text.slice(0, at)}}` : text) as JournalLine;
    return isStudyLine(line) ? line : undefined;
  } catch {
    return undefined;
  }
}

function isStudyLine(line: JournalLine): boolean {
  return (
    typeof line === 'object' &&
    line !== null &&
    typeof line.study === 'string' &&
    typeof line.inputHash === 'string' &&
    typeof line.outputs === 'object' &&
    line.outputs !== null
  );
}

/**
 * The studies of a journal's whole text, results and all (a later line for a study wins), and
 * how many lines were unreadable: for tools and tests that read a journal as a user would.
 */
export function readJournalText(text: string): { studies: Map<string, JournalLine>; bad: number } {
  const studies = new Map<string, JournalLine>();
  const lines = text.split('\n');
  let bad = 0;
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      const line = JSON.parse(raw) as JournalLine;
      if (!isStudyLine(line)) throw new Error('not a study line');
      studies.set(line.study, line);
    } catch {
      // A last line without its newline was torn by a kill: expected, and not worth a notice.
      const torn = i === lines.length - 1 && !text.endsWith('\n');
      if (!torn) bad++;
    }
  });
  return { studies, bad };
}

/** Enough of a case result to report it: a line some other program wrote is not trusted further. */
export function isCaseResult(value: unknown): value is CaseResult {
  const c = value as Partial<CaseResult> | undefined;
  return (
    typeof c === 'object' &&
    c !== null &&
    typeof c.id === 'string' &&
    typeof c.name === 'string' &&
    typeof c.playbook === 'string' &&
    c.status === 'passed' &&
    Array.isArray(c.steps)
  );
}
