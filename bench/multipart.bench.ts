// The multipart/related parsers considered for WADO-RS retrieval, side by side in this process:
// @remix-run/multipart-parser, dicer and multipasta (the one src/dicomweb uses). Two bodies, made
// chunk by chunk as a socket delivers them (64 KiB), never held whole: a series as an archive
// sends it (300 parts of 512 KiB, about 150 MiB) and one multi-frame instance of 150 MiB in a
// single part, where a parser that gathers each part in memory shows it. Each parser counts the
// bytes of every part body; printed: MiB/s, and the peak growth during a run of the RSS and of
// the live JavaScript heap plus buffers (medians of the runs). In one process the RSS rarely
// falls back after a run, so a later run's RSS growth understates it; heap plus buffers does not.
// Beside them, wbplay's own reader (multipasta plus its guard for a split closing delimiter) with
// a sink that awaits each chunk. No target: the figures chose the parser.
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import * as Multipasta from 'multipasta';
import { readMultipart } from '../src/dicomweb/multipart.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const CHUNK = 64 * KiB;
const RUNS = 3;
const BOUNDARY = 'bench-boundary-0123456789';

interface Body {
  name: string;
  parts: number;
  partSize: number;
}

const BODIES: Body[] = [
  { name: '300 parts x 512 KiB', parts: 300, partSize: 512 * KiB },
  { name: '1 part x 150 MiB', parts: 1, partSize: 150 * MiB },
];

/** Part bytes that look like DICOM, never containing the boundary. */
function partContent(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = ((i + seed) * 2654435761) >>> 24;
  b.write('DICM', 128, 'latin1');
  return b;
}

/** The body as 64 KiB chunks, each a fresh buffer as a socket would hand over. */
function* chunks(body: Body): Generator<Buffer> {
  const template = partContent(Math.min(body.partSize, 4 * MiB), 7);
  const head = Buffer.from(`--${BOUNDARY}\r\nContent-Type: application/dicom\r\n\r\n`, 'latin1');
  const between = Buffer.from(`\r\n--${BOUNDARY}\r\nContent-Type: application/dicom\r\n\r\n`, 'latin1');
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`, 'latin1');
  let chunk = Buffer.allocUnsafe(CHUNK);
  let filled = 0;
  function* emit(piece: Buffer): Generator<Buffer> {
    for (let at = 0; at < piece.length;) {
      const n = piece.copy(chunk, filled, at);
      at += n;
      filled += n;
      if (filled === CHUNK) {
        yield chunk;
        chunk = Buffer.allocUnsafe(CHUNK);
        filled = 0;
      }
    }
  }
  for (let p = 0; p < body.parts; p++) {
    yield* emit(p === 0 ? head : between);
    for (let done = 0; done < body.partSize;) {
      const n = Math.min(template.length, body.partSize - done);
      yield* emit(template.subarray(0, n));
      done += n;
    }
  }
  yield* emit(tail);
  if (filled > 0) yield chunk.subarray(0, filled);
}

/** Peaks seen while feeding, sampled every 16 chunks (1 MiB) between macrotasks. */
const peak = { rss: 0, live: 0 };
const live = (): number => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

/** The body's chunks with a pause every 1 MiB, where memory is sampled and timers may run. */
async function* feed(body: Body): AsyncGenerator<Buffer> {
  let n = 0;
  for (const chunk of chunks(body)) {
    yield chunk;
    if (++n % 16 === 0) {
      peak.rss = Math.max(peak.rss, process.memoryUsage.rss());
      peak.live = Math.max(peak.live, live());
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

interface Counted {
  parts: number;
  bytes: number;
}

// The other two are no dependencies of wbplay (dicer has an unfixed advisory, GHSA-wm7h-9275-46v2):
// `npm install --no-save @remix-run/multipart-parser@0.16.3 dicer@0.3.1` brings them for a run.
interface RemixParser {
  write(chunk: Uint8Array): Iterable<{ content: Uint8Array[] }>;
  finish(): void;
}
type RemixModule = {
  MultipartParser: new (boundary: string, options: { maxFileSize: number; maxTotalSize: number }) => RemixParser;
};
const optional = async <T>(name: string): Promise<T | undefined> => {
  try {
    return (await import(name)) as T;
  } catch {
    return undefined;
  }
};
const Remix = await optional<RemixModule>('@remix-run/multipart-parser');

async function remix(body: Body): Promise<Counted> {
  const parser = new Remix!.MultipartParser(BOUNDARY, {
    maxFileSize: Number.MAX_SAFE_INTEGER,
    maxTotalSize: Number.MAX_SAFE_INTEGER,
  });
  const out = { parts: 0, bytes: 0 };
  for await (const chunk of feed(body)) {
    for (const part of parser.write(chunk)) {
      out.parts++;
      for (const c of part.content) out.bytes += c.length;
    }
  }
  parser.finish();
  return out;
}

interface DicerPart {
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'end' | 'header', listener: () => void): this;
}
type DicerStream = Writable & { on(event: 'part', listener: (part: DicerPart) => void): DicerStream };
type DicerClass = new (options: { boundary: string }) => DicerStream;
const Dicer = ((): DicerClass | undefined => {
  try {
    return createRequire(import.meta.url)('dicer') as DicerClass;
  } catch {
    return undefined;
  }
})();

async function dicer(body: Body): Promise<Counted> {
  const out = { parts: 0, bytes: 0 };
  const d = new Dicer!({ boundary: BOUNDARY });
  d.on('part', (part) => {
    part.on('data', (c) => (out.bytes += c.length));
    part.on('end', () => out.parts++);
  });
  const finished = new Promise<void>((resolve, reject) => {
    d.on('finish', () => resolve());
    d.on('error', reject);
  });
  for await (const chunk of feed(body)) {
    if (!d.write(chunk)) await new Promise((resolve) => d.once('drain', resolve));
  }
  d.end();
  await finished;
  return out;
}

async function multipasta(body: Body): Promise<Counted> {
  const out = { parts: 0, bytes: 0 };
  let failed: string | undefined;
  const parser = Multipasta.make({
    headers: { 'content-type': `multipart/related; type="application/dicom"; boundary=${BOUNDARY}` },
    isFile: () => true,
    onField: () => undefined,
    onFile: () => (c) => {
      if (c === null) out.parts++;
      else out.bytes += c.length;
    },
    onError: (e) => (failed = e._tag),
    onDone: () => undefined,
  });
  for await (const chunk of feed(body)) parser.write(chunk);
  parser.end();
  if (failed) throw new Error(failed);
  return out;
}

async function wbplay(body: Body): Promise<Counted> {
  const out = { parts: 0, bytes: 0 };
  await readMultipart(
    feed(body),
    `multipart/related; type="application/dicom"; boundary=${BOUNDARY}`,
    {
      start: async () => undefined,
      data: async (c) => {
        out.bytes += c.length;
      },
      end: async () => {
        out.parts++;
      },
      abort: async () => undefined,
    },
    'the bench body',
  );
  return out;
}

const PARSERS: [string, (body: Body) => Promise<Counted>, boolean][] = [
  ['@remix-run/multipart-parser 0.16.3', remix, Remix !== undefined],
  ['dicer 0.3.1', dicer, Dicer !== undefined],
  ['multipasta 0.2.8', multipasta, true],
  ['wbplay readMultipart (multipasta)', wbplay, true],
];

/** Makes the chunks without parsing them: what producing the body costs. */
async function none(body: Body): Promise<Counted> {
  let bytes = 0;
  for await (const chunk of feed(body)) bytes += chunk.length;
  return { parts: 0, bytes };
}

async function measure(
  run: () => Promise<Counted>,
): Promise<{ ms: number; rssGrowth: number; liveGrowth: number; counted: Counted }> {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const before = { rss: process.memoryUsage.rss(), live: live() };
  peak.rss = before.rss;
  peak.live = before.live;
  const t0 = performance.now();
  const counted = await run();
  const ms = performance.now() - t0;
  return { ms, rssGrowth: peak.rss - before.rss, liveGrowth: peak.live - before.live, counted };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

export default async function bench(): Promise<void> {
  if (typeof (globalThis as { gc?: unknown }).gc !== 'function')
    console.log('(run with node --expose-gc for comparable RSS figures)');
  for (const body of BODIES) {
    const total = body.parts * body.partSize;
    console.log(`\n${body.name} (${(total / MiB).toFixed(0)} MiB in ${CHUNK / KiB} KiB chunks)`);
    const results = new Map<string, { ms: number[]; rss: number[]; live: number[] }>();
    const all: [string, (body: Body) => Promise<Counted>][] = [
      ['(no parser: making the chunks)', none],
      ...PARSERS.filter(([, , here]) => here).map(([name, parse]): [string, (body: Body) => Promise<Counted>] => [
        name,
        parse,
      ]),
    ];
    for (const [name, , here] of PARSERS) if (!here) console.log(`  ${name.padEnd(36)} not installed, skipped`);
    // A first pass warms every parser up; then interleaved runs, so a slow moment of the
    // machine falls on every parser alike.
    for (let r = -1; r < RUNS; r++) {
      for (const [name, parse] of all) {
        const m = await measure(() => parse(body));
        if (parse !== none && (m.counted.parts !== body.parts || m.counted.bytes !== total))
          throw new Error(`${name}: ${m.counted.parts} parts, ${m.counted.bytes} bytes`);
        if (r < 0) continue;
        const entry = results.get(name) ?? { ms: [], rss: [], live: [] };
        entry.ms.push(m.ms);
        entry.rss.push(m.rssGrowth);
        entry.live.push(m.liveGrowth);
        results.set(name, entry);
      }
    }
    for (const [name, { ms, rss, live }] of results)
      console.log(
        `  ${name.padEnd(36)} ${((total / MiB / median(ms)) * 1000).toFixed(0).padStart(6)} MiB/s   ` +
          `peak RSS +${(median(rss) / MiB).toFixed(1).padStart(5)} MiB   peak heap+buffers +${(median(live) / MiB).toFixed(1).padStart(5)} MiB`,
      );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await bench();
