/**
 * Writes the parts of a WADO-RS answer into a series' cache folder. Only once a part is
 * complete and checked (a Part 10 file of this series with a SOP Instance UID) is it renamed
 * into the folder under its instance's name: a part cut short, or one that is not DICOM, never
 * appears there.
 *
 * A part is one instance: a slice of a few hundred kB, or a multi-frame object of hundreds of
 * MB. A part up to IN_MEMORY bytes is held until it ends, checked from memory and written with
 * one synchronous write: the dozen awaited file operations a streamed part costs (open, a write
 * per chunk, close, the header read back, rename) made retrieval several times slower than
 * the network for series of small slices, and a write to the page cache blocks for well under a
 * millisecond. A larger part streams to its temporary file in large writes as it arrives, so
 * neither it nor the series is ever held whole; its header is checked from its first bytes.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, renameSync, writevSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { parseBytes, readHeader, str, type ParsedFile } from '../volume/dicom/data-set.js';
import type { SeriesCache } from './cache.js';
import { cacheWriteError } from './errors.js';
import type { PartSink } from './multipart.js';

/** Why a complete part was not kept. */
export type Rejection = 'not-dicom' | 'other-series';

const SOP_INSTANCE_UID = 'x00080018';
const SERIES_INSTANCE_UID = 'x0020000e';
/** The preamble and `DICM`: a Part 10 file, as application/dicom parts are (PS3.18 8.7.3.1). */
const HEAD = 132;
/** A part this large or smaller is held until it ends. */
const IN_MEMORY = 8 * 1024 * 1024;
/** A streamed part's first bytes, kept to check its header without reading it back. */
const HEADER_BYTES = 64 * 1024;
/** A streamed part is written in pieces this large. */
const WRITE_BYTES = 1024 * 1024;

/** What the writers of one retrieval stored, across its answers. */
export interface Tally {
  stored: number;
}

/** The writer of one answer: its parts arrive one after the other. */
export class InstanceWriter implements PartSink {
  /** SOP Instance UIDs stored from this answer. */
  readonly stored: string[] = [];
  readonly rejected: Rejection[] = [];
  /** The part's bytes not yet written: all of it while it is held in memory. */
  private chunks: Uint8Array[] = [];
  private held = 0;
  /** The first bytes of a streamed part. */
  private header: Uint8Array | undefined;
  private handle: FileHandle | undefined;
  private temp: string | undefined;

  constructor(
    private readonly cache: SeriesCache,
    private readonly series: string,
    private readonly dir: string,
    private readonly tally: Tally,
  ) {}

  async start(): Promise<void> {
    this.chunks = [];
    this.held = 0;
    this.header = undefined;
    this.temp = join(this.cache.tempDir, `${randomBytes(8).toString('hex')}.part`);
  }

  async data(chunk: Uint8Array): Promise<void> {
    this.chunks.push(chunk);
    this.held += chunk.length;
    if (this.handle === undefined && this.held > IN_MEMORY) await this.startStreaming();
    if (this.handle !== undefined && this.held >= WRITE_BYTES) await this.flush();
  }

  async end(): Promise<void> {
    const temp = this.temp!;
    const streamed = this.handle !== undefined;
    const whole = streamed ? undefined : Buffer.concat(this.chunks, this.held);
    if (streamed) {
      await this.flush();
      try {
        await this.handle!.close();
      } catch (err) {
        throw cacheWriteError(this.cache.root, err);
      } finally {
        this.handle = undefined;
      }
    }
    this.chunks = [];
    this.held = 0;
    const verdict = await this.check(whole ?? this.header ?? new Uint8Array(0), streamed ? temp : undefined);
    if (verdict.sop === undefined) {
      this.rejected.push(verdict.rejected);
      await this.drop();
      return;
    }
    const target = join(this.dir, this.cache.instanceName(verdict.sop));
    try {
      if (whole) {
        const fd = openSync(temp, 'wx');
        try {
          for (let offset = 0; offset < whole.length;) offset += writevSync(fd, [whole.subarray(offset)]);
        } finally {
          closeSync(fd);
        }
        renameSync(temp, target);
      } else {
        await rename(temp, target);
      }
    } catch (err) {
      await this.drop();
      throw cacheWriteError(this.cache.root, err);
    }
    this.temp = undefined;
    this.stored.push(verdict.sop);
    this.tally.stored++;
  }

  async abort(): Promise<void> {
    this.chunks = [];
    this.held = 0;
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    await this.drop();
  }

  private async startStreaming(): Promise<void> {
    const first = Buffer.concat(this.chunks, this.held);
    this.header = first.subarray(0, HEADER_BYTES);
    try {
      this.handle = await open(this.temp!, 'wx');
    } catch (err) {
      throw cacheWriteError(this.cache.root, err);
    }
  }

  /** Writes what is held, in one call. */
  private async flush(): Promise<void> {
    const pieces = this.chunks;
    this.chunks = [];
    this.held = 0;
    try {
      for (let i = 0; i < pieces.length;) {
        let { bytesWritten } = await this.handle!.writev(pieces.slice(i));
        // A short write: skip the pieces written, then go on inside the one written in part.
        while (i < pieces.length && bytesWritten >= pieces[i]!.length) bytesWritten -= pieces[i++]!.length;
        if (bytesWritten > 0) pieces[i] = pieces[i]!.subarray(bytesWritten);
      }
    } catch (err) {
      throw cacheWriteError(this.cache.root, err);
    }
  }

  /** The part's SOP Instance UID, or why it is not kept: from its bytes, or read back from `file`. */
  private async check(
    bytes: Uint8Array,
    file: string | undefined,
  ): Promise<{ sop: string; rejected?: never } | { sop?: never; rejected: Rejection }> {
    if (bytes.length < HEAD || bytes[128] !== 0x44 || bytes[129] !== 0x49 || bytes[130] !== 0x43 || bytes[131] !== 0x4d)
      return { rejected: 'not-dicom' };
    let parsed: ParsedFile;
    try {
      parsed = parseBytes(bytes, 'part', true);
    } catch {
      // A header longer than the bytes kept of a streamed part: it is read from its file.
      if (file === undefined) return { rejected: 'not-dicom' };
      try {
        parsed = await readHeader(file);
      } catch {
        return { rejected: 'not-dicom' };
      }
    }
    const sop = str(parsed.ds, SOP_INSTANCE_UID)?.replace(/\0/g, '').trim();
    const series = str(parsed.ds, SERIES_INSTANCE_UID)?.replace(/\0/g, '').trim();
    if (sop === undefined || sop === '') return { rejected: 'not-dicom' };
    return series === this.series ? { sop } : { rejected: 'other-series' };
  }

  private async drop(): Promise<void> {
    if (this.temp !== undefined) await rm(this.temp, { force: true }).catch(() => undefined);
    this.temp = undefined;
  }
}
