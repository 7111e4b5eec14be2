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

/** One line of a file and where it lies; `ended` is false for a last line without its newline. */
export interface FileLine {
  text: string;
  span: TextSpan;
  ended: boolean;
}

/**
 * The lines of an open file with where each lies (in bytes, so a span read back is the line
 * whatever its characters), read a buffer at a time: a large file is never held whole.
 */
export async function* linesOf(handle: FileHandle, chunkBytes = 1 << 18): AsyncIterable<FileLine> {
  let rest = Buffer.alloc(0);
  let offset = 0;
  const stream = handle.createReadStream({ start: 0, highWaterMark: chunkBytes, autoClose: false });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    for (let end = data.indexOf(0x0a); end >= 0; end = data.indexOf(0x0a)) {
      yield { text: data.toString('utf8', 0, end), span: { offset, length: end }, ended: true };
      offset += end + 1;
      data = data.subarray(end + 1);
    }
    rest = Buffer.from(data);
  }
  if (rest.length > 0) yield { text: rest.toString('utf8'), span: { offset, length: rest.length }, ended: false };
}
