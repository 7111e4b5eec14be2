import { appendFile, open, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FileWriteError, inFolder, injectedFault, writeChunksAtomic } from '../files/atomic-write.js';
import { FileHasher, type HashRecord } from '../files/file-hash.js';
import { slashes } from '../files/portable-path.js';
import { SpanReader, type TextSpan } from '../files/text-span.js';

export const JOURNAL_NAME = 'wbplay-journal.jsonl';
/** The whole-file record earlier versions wrote; read once, when there is no journal yet. */
const OLD_MANIFEST_NAME = 'wbplay-manifest.json';

export interface StudyRecord {
  /** Hash of everything the study's result depends on: playbook and includes, data, vars. */
  inputHash: string;
  /** Output files (absolute paths) and their SHA-256. */
  outputs: Record<string, string>;
  finishedAt: string;
}

/** One line of the journal: a finished study, and what its files looked like when hashed. */
interface JournalLine extends StudyRecord {
  study: string;
  files?: Record<string, HashRecord>;
}

/**
 * The resume record of an output folder, as an append-only journal: one JSON line per study
 * that passed, appended only after all its outputs were written, so recording a study costs
 * the same at the ten-thousandth study as at the first. A run killed mid-append leaves a torn
 * last line, which is ignored (that study runs again). At the end of a run the journal is
 * compacted to one line per study, atomically. Resuming reads it once.
 */
export class Journal {
  private appending: Promise<void> = Promise.resolve();
  /**
   * Lines appended by this run, by where they are in the file: a recorded study is only ever
   * asked about again by compaction, which copies its line, so its record is not kept in memory.
   */
  private readonly appended = new Map<string, TextSpan>();

  private constructor(
    readonly path: string,
    /** The records found when the journal was opened, for the resume checks. */
    private readonly studies: Map<string, JournalLine>,
    readonly hasher: FileHasher,
    /** Bytes in the file; a torn last line is closed with a newline before the first append. */
    private size: number,
    private torn: boolean,
    /** Set when lines of the journal could not be read. */
    readonly notice?: string,
  ) {}

  static async open(outputDir: string): Promise<Journal> {
    const path = join(outputDir, JOURNAL_NAME);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch {
      return Journal.fromOldManifest(outputDir, path);
    }
    const text = bytes.toString('utf8');
    const { studies, bad } = readJournalText(text);
    const files: Record<string, HashRecord> = {};
    for (const line of studies.values()) Object.assign(files, line.files);
    const notice =
      bad > 0 ? `ignored ${bad} unreadable line${bad === 1 ? '' : 's'} of ${path}; those studies run again` : undefined;
    const torn = bytes.length > 0 && !text.endsWith('\n');
    return new Journal(path, studies, new FileHasher(files), bytes.length, torn, notice);
  }

  /** A folder written by an earlier version resumes from its manifest; the journal starts from it. */
  private static async fromOldManifest(outputDir: string, path: string): Promise<Journal> {
    try {
      const old = JSON.parse(await readFile(join(outputDir, OLD_MANIFEST_NAME), 'utf8')) as {
        version?: number;
        studies?: Record<string, StudyRecord>;
        files?: Record<string, HashRecord>;
      };
      if (old.version !== 1 || typeof old.studies !== 'object' || old.studies === null)
        throw new Error('unknown version');
      const studies = new Map(Object.entries(old.studies).map(([study, r]) => [study, { study, ...r }]));
      return new Journal(path, studies, new FileHasher(old.files ?? {}), 0, false);
    } catch {
      return new Journal(path, new Map(), new FileHasher(), 0, false);
    }
  }

  /** True when the study ran with the same inputs and all its outputs are still as written. */
  async isUpToDate(studyId: string, inputHash: string): Promise<boolean> {
    const record = this.studies.get(studyId);
    if (!record || record.inputHash !== inputHash) return false;
    for (const [path, sha256] of Object.entries(record.outputs)) {
      if ((await this.hasher.hash(path)) !== sha256) return false;
    }
    return true;
  }

  /** Appends the study's line; `files` are the hash records of its inputs and outputs. */
  record(studyId: string, record: StudyRecord, files: readonly string[] = Object.keys(record.outputs)): Promise<void> {
    const known = files.flatMap((f) => {
      const r = this.hasher.recordOf(f);
      return r ? [[slashes(f), r] as const] : [];
    });
    const line = Buffer.from(
      `${this.torn ? '\n' : ''}${JSON.stringify({ study: studyId, ...record, files: Object.fromEntries(known) })}\n`,
    );
    const lead = this.torn ? 1 : 0;
    this.torn = false;
    this.appended.set(studyId, { offset: this.size + lead, length: line.length - lead - 1 });
    this.studies.delete(studyId);
    this.size += line.length;
    // Appends are chained so two workers' lines never interleave. Not flushed to disk each
    // time: a killed process loses nothing, and after a power loss a journal that went back in
    // time only makes finished studies run again.
    const next = this.appending.then(() =>
      inFolder(dirname(this.path), async () => {
        injectedFault(this.path);
        await appendFile(this.path, line);
      }).catch((err: unknown) => {
        throw FileWriteError.of(this.path, err);
      }),
    );
    this.appending = next.catch(() => undefined);
    return next;
  }

  has(studyId: string): boolean {
    return this.studies.has(studyId) || this.appended.has(studyId);
  }

  /**
   * Rewrites the journal as one line per study, in study order, atomically: lines this run
   * appended are copied from the file one at a time, so the whole journal is never held.
   */
  async compact(): Promise<void> {
    await this.appending;
    const ids = [...new Set([...this.studies.keys(), ...this.appended.keys()])].sort((a, b) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    if (ids.length === 0) return;
    const handle = this.appended.size > 0 ? await open(this.path, 'r') : undefined;
    try {
      const studies = this.studies;
      const appended = this.appended;
      const texts = handle && new SpanReader(handle, this.path);
      await writeChunksAtomic(
        this.path,
        (async function* lines() {
          for (const id of ids) {
            const span = appended.get(id);
            yield `${span && texts ? await texts.read(span) : JSON.stringify(studies.get(id))}\n`;
          }
        })(),
        { durable: false },
      );
    } finally {
      await handle?.close();
    }
  }
}

/** The studies of a journal's text (a later line for a study wins) and how many lines were unreadable. */
export function readJournalText(text: string): { studies: Map<string, JournalLine>; bad: number } {
  const studies = new Map<string, JournalLine>();
  const lines = text.split('\n');
  let bad = 0;
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      const line = JSON.parse(raw) as JournalLine;
      if (
        typeof line.study !== 'string' ||
        typeof line.inputHash !== 'string' ||
        typeof line.outputs !== 'object' ||
        line.outputs === null
      )
        throw new Error('not a study line');
      studies.set(line.study, line);
    } catch {
      // A last line without its newline was torn by a kill: expected, and not worth a notice.
      const torn = i === lines.length - 1 && !text.endsWith('\n');
      if (!torn) bad++;
    }
  });
  return { studies, bad };
}
