import { appendFile, open, readFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FileWriteError, inFolder, injectedFault, writeChunksAtomic } from '../files/atomic-write.js';
import { FileHasher, type HashRecord } from '../files/file-hash.js';
import { slashes } from '../files/portable-path.js';
import { linesOf, SpanReader, type TextSpan } from '../files/text-span.js';
import type { CaseResult } from '../result/result.js';
import { isCaseResult, parseHead, totalLength, type JournalLine, type StudyRecord } from './journal-line.js';

export { readJournalText, type StudyRecord } from './journal-line.js';

export const JOURNAL_NAME = 'wbplay-journal.jsonl';

/** A journal dropped without compaction (a run that failed) closes the file it read results from. */
const closeWhenDropped = new FinalizationRegistry<FileHandle>((handle) => {
  void handle.close().catch(() => undefined);
});
/** The whole-file record earlier versions wrote; read once, when there is no journal yet. */
const OLD_MANIFEST_NAME = 'wbplay-manifest.json';

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
  /** The file, opened once results are asked for; positional reads share it. */
  private reading: Promise<FileHandle> | undefined;

  private constructor(
    readonly path: string,
    /**
     * The records found when the journal was opened, for the resume checks, without their
     * results: those stay in the file (`lines`) and are read when a study is reported.
     */
    private readonly studies: Map<string, JournalLine>,
    /** Where each record found at opening lies in the file. */
    private readonly lines: ReadonlyMap<string, TextSpan>,
    readonly hasher: FileHasher,
    /** Bytes in the file; a torn last line is closed with a newline before the first append. */
    private size: number,
    private torn: boolean,
    /** Set when lines of the journal could not be read. */
    readonly notice?: string,
    /** The file as opened is one line per study in study order already: a run that adds none need not rewrite it. */
    private readonly compacted = false,
  ) {}

  /**
   * Reads the journal a line at a time: of each line only what the resume checks need is
   * parsed and kept (the hashes go to the hasher), and the study's result stays in the file
   * until the study is reported.
   */
  static async open(outputDir: string): Promise<Journal> {
    const path = join(outputDir, JOURNAL_NAME);
    let handle;
    try {
      handle = await open(path, 'r');
    } catch {
      return Journal.fromOldManifest(outputDir, path);
    }
    const studies = new Map<string, JournalLine>();
    const spans = new Map<string, TextSpan>();
    const files: Record<string, HashRecord> = {};
    let bad = 0;
    let size = 0;
    let torn = false;
    let ordered = true;
    let last: string | undefined;
    try {
      for await (const { text, span, ended } of linesOf(handle)) {
        size = span.offset + span.length + (ended ? 1 : 0);
        torn = !ended;
        if (text.trim() === '') continue;
        const line = parseHead(text);
        if (!line) {
          // A last line without its newline was torn by a kill: expected, and not worth a notice.
          if (ended) bad++;
          continue;
        }
        Object.assign(files, line.files);
        delete line.files;
        if (last !== undefined && !(last < line.study)) ordered = false;
        last = line.study;
        studies.set(line.study, line);
        spans.set(line.study, span);
      }
    } catch {
      // Not a file that can be read (a folder in its place): nothing is known done, as when it is missing.
      return Journal.fromOldManifest(outputDir, path);
    } finally {
      await handle.close();
    }
    const notice =
      bad > 0 ? `ignored ${bad} unreadable line${bad === 1 ? '' : 's'} of ${path}; those studies run again` : undefined;
    const compacted = ordered && bad === 0 && !torn && size === totalLength(spans);
    return new Journal(path, studies, spans, new FileHasher(files), size, torn, notice, compacted);
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
      return new Journal(path, studies, new Map(), new FileHasher(old.files ?? {}), 0, false);
    } catch {
      return new Journal(path, new Map(), new Map(), new FileHasher(), 0, false);
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

  /**
   * The result recorded with a study found at opening, read from the file; undefined when its
   * line has none (an earlier version wrote it) or cannot be read back as the same study's.
   */
  async result(studyId: string): Promise<CaseResult | undefined> {
    const span = this.lines.get(studyId);
    if (!span || !this.studies.has(studyId)) return undefined;
    try {
      this.reading ??= open(this.path, 'r').then((handle) => {
        closeWhenDropped.register(this, handle, this);
        return handle;
      });
      const handle = await this.reading;
      // A buffer of its own: workers ask for results at the same time.
      const bytes = Buffer.alloc(span.length);
      const { bytesRead } = await handle.read(bytes, 0, span.length, span.offset);
      if (bytesRead < span.length) return undefined;
      const line = JSON.parse(bytes.toString('utf8')) as Partial<JournalLine>;
      return line.study === studyId && isCaseResult(line.result) ? line.result : undefined;
    } catch {
      return undefined;
    }
  }

  /** Closes the handle results were read through, if one was opened. */
  private async closeReading(): Promise<void> {
    const reading = this.reading;
    this.reading = undefined;
    if (!reading) return;
    closeWhenDropped.unregister(this);
    await reading.then((h) => h.close()).catch(() => undefined);
  }

  /** When the study found at opening finished, as its line says. */
  finishedAt(studyId: string): string | undefined {
    return this.studies.get(studyId)?.finishedAt;
  }

  /** Appends the study's line; `files` are the hash records of its inputs and outputs. */
  record(studyId: string, record: StudyRecord, files: readonly string[] = Object.keys(record.outputs)): Promise<void> {
    const known = files.flatMap((f) => {
      const r = this.hasher.recordOf(f);
      return r ? [[slashes(f), r] as const] : [];
    });
    const { result, ...hashes } = record;
    // The result last: the hashes a resume check needs come first in the line.
    const line = Buffer.from(
      `${this.torn ? '\n' : ''}${JSON.stringify({ study: studyId, ...hashes, files: Object.fromEntries(known), ...(result ? { result } : {}) })}\n`,
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
   * Rewrites the journal as one line per study, in study order, atomically: lines are copied
   * from the file one at a time, so the whole journal is never held.
   */
  async compact(): Promise<void> {
    await this.appending;
    await this.closeReading();
    const ids = [...new Set([...this.studies.keys(), ...this.appended.keys()])].sort((a, b) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    if (ids.length === 0 || (this.appended.size === 0 && this.compacted)) return;
    const handle = this.appended.size > 0 || this.lines.size > 0 ? await open(this.path, 'r') : undefined;
    try {
      const studies = this.studies;
      const appended = this.appended;
      const found = this.lines;
      const texts = handle && new SpanReader(handle, this.path);
      await writeChunksAtomic(
        this.path,
        (async function* lines() {
          for (const id of ids) {
            const span = appended.get(id) ?? found.get(id);
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
