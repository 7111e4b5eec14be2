import type { FileHandle } from 'node:fs/promises';

/** Where a piece of UTF-8 text lies in a file: a case line of a report, a study's journal line. */
export interface TextSpan {
  offset: number;
  length: number;
}

/**
 * Reads texts at known places of an open file, one after another, into one buffer that grows
 * as needed. A file shorter than when the places were taken is an error, not a short text.
 */
export class SpanReader {
  private buffer = Buffer.alloc(16 * 1024);

  constructor(
    private readonly handle: FileHandle,
    private readonly file: string,
  ) {}

  async read(span: TextSpan): Promise<string> {
    if (this.buffer.length < span.length) this.buffer = Buffer.alloc(span.length * 2);
    const { bytesRead } = await this.handle.read(this.buffer, 0, span.length, span.offset);
    if (bytesRead < span.length) throw new Error(`${this.file} is shorter than when it was written`);
    return this.buffer.toString('utf8', 0, span.length);
  }
}
