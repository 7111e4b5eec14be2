// Direct upload of a 256 MiB file through the client, against undici streaming the same file
// to the same loopback server without the client, in this process. The server runs in a
// child process and discards the body, so this process's memory is the client's alone.
// Targets: throughput ratio >= 0.9, peak RSS growth during the upload <= 64 MiB.
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { connect } from '../src/client/index.js';

const SIZE = 256 * 1024 * 1024;
const RUNS = 5;
const MiB = 1024 * 1024;

const SERVER = `
const http = require('node:http');
const node = JSON.stringify({ data: { uid: 'n1', name: 'bench', path: '/bench', parent_uid: null, data_type: 'Image', children_count: 0, timestamp: 1 }, meta: {} });
const srv = http.createServer((req, res) => {
  let n = 0;
  req.on('data', (c) => { n += c.length; });
  req.on('end', () => { res.writeHead(201, { 'content-type': 'application/json', 'x-received': String(n) }); res.end(node); });
});
srv.listen(0, '127.0.0.1', () => process.stdout.write(String(srv.address().port) + '\\n'));
`;

async function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) =>
    child.stdout?.once('data', (c: Buffer) => resolve(Number(c.toString().trim()))),
  );
  return { child, url: `http://127.0.0.1:${port}` };
}

async function writeFile(path: string): Promise<void> {
  const fh = await open(path, 'w');
  const chunk = Buffer.alloc(8 * MiB);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 2654435761) >>> 24;
  for (let written = 0; written < SIZE; written += chunk.length) await fh.write(chunk);
  await fh.close();
}

/** Runs `fn` while sampling RSS; returns the elapsed time and the peak growth over the RSS before it. */
async function measure(fn: () => Promise<void>): Promise<{ ms: number; rssGrowth: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage.rss());
  return { ms, rssGrowth: peak - before };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

export default async function bench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-upload-bench-'));
  const file = join(dir, 'volume.nrrd');
  const { child, url } = await startServer();
  const agent = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
  const client = connect({ url, timeoutMs: 120_000 });
  try {
    await writeFile(file);
    // The baseline reads with the same chunk size as the client, so the ratio shows the client's own cost.
    const baseline = async (): Promise<void> => {
      const res = await request(`${url}/api/v1/datastorage/nodes?name=volume`, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/octet-stream',
          'content-disposition': 'attachment; filename="volume.nrrd"',
          'x-mitk-data-format': 'nrrd',
          'content-length': String(SIZE),
        },
        body: createReadStream(file, { highWaterMark: MiB }),
      });
      if (res.headers['x-received'] !== String(SIZE))
        throw new Error(`baseline: server received ${String(res.headers['x-received'])} bytes`);
      await res.body.json();
    };
    const viaClient = async (): Promise<void> => {
      const made = await client.nodes.create({ file, transfer: 'direct' });
      if (made.node.uid !== 'n1') throw new Error('unexpected answer');
    };
    await baseline();
    await viaClient();
    const base: number[] = [];
    const ours: number[] = [];
    const growth: number[] = [];
    const baseGrowth: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternating which goes first keeps any warm-up or page-cache drift from favouring one.
      const first = i % 2 === 0;
      const c0 = first ? await measure(viaClient) : undefined;
      const b = await measure(baseline);
      const c = c0 ?? (await measure(viaClient));
      base.push(b.ms);
      baseGrowth.push(b.rssGrowth);
      ours.push(c.ms);
      growth.push(c.rssGrowth);
    }
    const mibPerS = (ms: number): number => SIZE / MiB / (ms / 1000);
    const ratio = mibPerS(median(ours)) / mibPerS(median(base));
    const peakGrowth = Math.max(...growth) / MiB;
    console.log(`file ${SIZE / MiB} MiB, ${RUNS} runs each, medians`);
    console.log(
      `undici alone:  ${mibPerS(median(base)).toFixed(0)} MiB/s, peak RSS growth ${(Math.max(...baseGrowth) / MiB).toFixed(1)} MiB`,
    );
    console.log(`client:        ${mibPerS(median(ours)).toFixed(0)} MiB/s`);
    console.log(
      `throughput ratio client/undici: ${ratio.toFixed(2)} (target >= 0.9) ${ratio >= 0.9 ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `peak RSS growth during client upload: ${peakGrowth.toFixed(1)} MiB (target <= 64 MiB) ${peakGrowth <= 64 ? 'ok' : 'MISSED'}`,
    );
  } finally {
    await client.close();
    await agent.close();
    child.kill();
    await rm(dir, { recursive: true, force: true });
  }
}
