/**
 * Writes the parts of a WADO-RS answer into a series' cache folder: each part goes to a
 * temporary file as it streams in, and only once it is complete and checked (a Part 10 file of
 * this series with a SOP Instance UID) is it renamed into the folder under its instance's name.
 * A part cut short, or one that is not DICOM, never appears there.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { readHeader, str } from '../volume/dicom/data-set.js';
import type { SeriesCache } from './cache.js';
import { cacheWriteError } from './errors.js';
import type { PartSink } from './multipart.js';

/** Why a complete part was not kept. */
export type Rejection = 'not-dicom' | 'other-series';

const SOP_INSTANCE_UID = 'x00080018';
const SERIES_INSTANCE_UID = 'x0020000e';
/** The preamble and `DICM`: a Part 10 file, as application/dicom parts are (PS3.18 8.7.3.1). */
const HEAD = 132;

/** What the writers of one retrieval stored, across its answers. */
export interface Tally {
  stored: number;
}

/** The writer of one answer: its parts arrive one after the other. */
export class InstanceWriter implements PartSink {
  /** SOP Instance UIDs stored from this answer. */
  readonly stored: string[] = [];
  readonly rejected: Rejection[] = [];
  private handle: FileHandle | undefined;
  private temp: string | undefined;
  private head = Buffer.alloc(HEAD);
  private headLength = 0;

  constructor(
    private readonly cache: SeriesCache,
    private readonly series: string,
    private readonly dir: string,
    private readonly tally: Tally,
  ) {}

  async start(): Promise<void> {
    this.temp = join(this.cache.tempDir, `${randomBytes(8).toString('hex')}.part`);
    this.headLength = 0;
    try {
      this.handle = await open(this.temp, 'wx');
    } catch (err) {
      this.temp = undefined;
      throw cacheWriteError(this.cache.root, err);
    }
  }

  async data(chunk: Uint8Array): Promise<void> {
    if (this.headLength < HEAD) {
      const n = Math.min(HEAD - this.headLength, chunk.length);
      this.head.set(chunk.subarray(0, n), this.headLength);
      this.headLength += n;
    }
    try {
      for (let offset = 0; offset < chunk.length;) {
        const { bytesWritten } = await this.handle!.write(chunk, offset, chunk.length - offset);
        offset += bytesWritten;
      }
    } catch (err) {
      throw cacheWriteError(this.cache.root, err);
    }
  }

  async end(): Promise<void> {
    const temp = this.temp!;
    try {
      await this.handle!.close();
    } catch (err) {
      throw cacheWriteError(this.cache.root, err);
    } finally {
      this.handle = undefined;
    }
    const { sop, rejected } = await this.check(temp);
    if (sop === undefined) {
      this.rejected.push(rejected);
      await this.drop();
      return;
    }
    try {
      await rename(temp, join(this.dir, this.cache.instanceName(sop)));
    } catch (err) {
      await this.drop();
      throw cacheWriteError(this.cache.root, err);
    }
    this.temp = undefined;
    this.stored.push(sop);
    this.tally.stored++;
  }

  async abort(): Promise<void> {
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    await this.drop();
  }

  /** The part's SOP Instance UID, or why it is not kept. */
  private async check(temp: string): Promise<{ sop: string; rejected?: never } | { sop?: never; rejected: Rejection }> {
    const h = this.head;
    if (this.headLength < HEAD || h[128] !== 0x44 || h[129] !== 0x49 || h[130] !== 0x43 || h[131] !== 0x4d)
      return { rejected: 'not-dicom' };
    try {
      const { ds } = await readHeader(temp);
      const sop = str(ds, SOP_INSTANCE_UID)?.replace(/\0/g, '').trim();
      const series = str(ds, SERIES_INSTANCE_UID)?.replace(/\0/g, '').trim();
      if (sop === undefined || sop === '') return { rejected: 'not-dicom' };
      return series === this.series ? { sop } : { rejected: 'other-series' };
    } catch {
      return { rejected: 'not-dicom' };
    }
  }

  private async drop(): Promise<void> {
    if (this.temp !== undefined) await rm(this.temp, { force: true }).catch(() => undefined);
    this.temp = undefined;
  }
}
