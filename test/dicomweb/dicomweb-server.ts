// A small DICOMweb archive for the client's tests, on 127.0.0.1:0 with node:http: QIDO-RS
// (paged, with a cap of its own), WADO-RS multipart answers written part by part, STOW-RS. It
// serves real DICOM files (the demo series) and records every request; faults are programmed
// per test: a status, a reset or a cut after some parts, a part that is no DICOM.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFile } from 'node:fs/promises';
import { parseBytes, str } from '../../src/volume/dicom/data-set.js';

export interface Instance {
  study: string;
  series: string;
  sop: string;
  bytes: Buffer;
  patientId: string;
  modality: string;
  seriesDescription: string;
}

export interface Seen {
  method: string;
  /** Path below the server's root, UIDs as sent. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** STOW-RS: the SOP Instance UIDs of the parts received. */
  stowed?: string[];
}

/**
 * What a WADO-RS answer does at a part: send it, send bytes that are no DICOM, or send half of it
 * and then drop the connection (reset) or end the body without its closing delimiter (truncate).
 */
export type PartFault = 'ok' | 'garbage' | 'reset' | 'truncate';

export interface ServerOptions {
  /** The Authorization header required; anything else gets 401. */
  authorization?: string;
  /** The most results one QIDO-RS answer holds, whatever the limit. */
  maxPage?: number;
  /** Say so in a Warning header when a capped page leaves results behind (PS3.18 8.3.4.4). */
  warnMore?: boolean;
  /** Answer an empty search with 204 rather than `[]`. */
  emptyIs204?: boolean;
  /** Runs first; returns true when it answered the request itself. */
  before?: (seen: Seen, res: ServerResponse, count: number) => boolean | Promise<boolean>;
  /**
   * WADO-RS answers as Orthanc sends them: `Connection: close`, no length, the body ended by
   * closing the connection.
   */
  closeDelimited?: boolean;
  /** Per WADO-RS part. */
  part?: (p: { level: 'series' | 'instance'; index: number; sop: string; request: number }) => PartFault;
  /** STOW-RS: which of the received instances to keep and what to answer. */
  stow?: (
    received: Instance[],
    attempt: number,
  ) => { keep: Instance[]; status: number; failed?: { sop: string; reason: number }[]; retryAfter?: string };
}

export interface TestArchive {
  url: string;
  seen: Seen[];
  instances: Instance[];
  close(): Promise<void>;
}

export async function instancesOf(files: string[]): Promise<Instance[]> {
  const out: Instance[] = [];
  for (const file of files) {
    const bytes = await readFile(file);
    out.push(instanceOf(bytes, file));
  }
  return out;
}

function instanceOf(bytes: Buffer, name: string): Instance {
  const { ds } = parseBytes(bytes, name, true);
  return {
    study: str(ds, 'x0020000d')!,
    series: str(ds, 'x0020000e')!,
    sop: str(ds, 'x00080018')!,
    bytes,
    patientId: str(ds, 'x00100020') ?? '',
    modality: str(ds, 'x00080060') ?? '',
    seriesDescription: str(ds, 'x0008103e') ?? '',
  };
}

const text = (vr: string, v: string | undefined): object => (v === undefined ? { vr } : { vr, Value: [v] });

function studyJson(all: Instance[], study: string): object {
  const mine = all.filter((i) => i.study === study);
  return {
    '0020000D': text('UI', study),
    '00100020': text('LO', mine[0]!.patientId),
    '00100010': { vr: 'PN', Value: [{ Alphabetic: 'Demo^Patient' }] },
    '00080061': { vr: 'CS', Value: [...new Set(mine.map((i) => i.modality))] },
    '00201206': { vr: 'IS', Value: [new Set(mine.map((i) => i.series)).size] },
  };
}

function seriesJson(all: Instance[], series: string): object {
  const mine = all.filter((i) => i.series === series);
  return {
    '0020000E': text('UI', series),
    '00080060': text('CS', mine[0]!.modality),
    '0008103E': text('LO', mine[0]!.seriesDescription),
    '00201209': { vr: 'IS', Value: [mine.length] },
  };
}

export async function startArchive(instances: Instance[], options: ServerOptions = {}): Promise<TestArchive> {
  const held = [...instances];
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  let stowAttempts = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = decodeURIComponent(url.pathname.replace(/^\/dicom-web/, ''));
    const s: Seen = { method: req.method ?? '', path, query: url.searchParams, headers: req.headers };
    seen.push(s);
    const body: Buffer[] = [];
    for await (const c of req) body.push(c as Buffer);
    if (options.authorization !== undefined && req.headers.authorization !== options.authorization) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="test"' }).end('no');
      return;
    }
    if (options.before && (await options.before(s, res, seen.length))) return;
    const parts = path.split('/').filter(Boolean);
    if (req.method === 'POST' && parts.length === 2 && parts[0] === 'studies') {
      stowAttempts++;
      const received = splitMultipart(Buffer.concat(body), String(req.headers['content-type'])).map((b) =>
        instanceOf(b, 'stowed'),
      );
      s.stowed = received.map((i) => i.sop);
      const answer = options.stow?.(received, stowAttempts) ?? { keep: received, status: 200 };
      for (const i of answer.keep) if (!held.some((h) => h.sop === i.sop)) held.push(i);
      const json: Record<string, object> = {
        '00081199': {
          vr: 'SQ',
          Value: answer.keep.map((i) => ({ '00081155': text('UI', i.sop) })),
        },
      };
      if (answer.failed)
        json['00081198'] = {
          vr: 'SQ',
          Value: answer.failed.map((f) => ({
            '00081155': text('UI', f.sop),
            '00081197': { vr: 'US', Value: [f.reason] },
          })),
        };
      res.writeHead(answer.status, {
        'content-type': 'application/dicom+json',
        ...(answer.retryAfter === undefined ? {} : { 'retry-after': answer.retryAfter }),
      });
      res.end(JSON.stringify(json));
      return;
    }
    if (req.method !== 'GET' || parts[0] !== 'studies') {
      res.writeHead(404).end();
      return;
    }
    const [, study, , series, , sop] = parts;
    let results: object[] | undefined;
    if (parts.length === 1) {
      const pid = url.searchParams.get('PatientID');
      const studies = [...new Set(held.filter((i) => pid === null || i.patientId === pid).map((i) => i.study))];
      results = studies.map((st) => studyJson(held, st));
    } else if (parts.length === 3 && parts[2] === 'series') {
      const mod = url.searchParams.get('Modality');
      const list = held.filter((i) => i.study === study && (mod === null || i.modality === mod));
      results = [...new Set(list.map((i) => i.series))].map((se) => seriesJson(held, se));
    } else if (parts.length === 5 && parts[4] === 'instances')
      results = held
        .filter((i) => i.study === study && i.series === series)
        .map((i) => ({ '00080018': text('UI', i.sop), '0020000E': text('UI', i.series) }));
    if (results !== undefined) {
      const limit = Number(url.searchParams.get('limit') ?? 1000);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const size = Math.min(limit, options.maxPage ?? Infinity);
      const page = results.slice(offset, offset + size);
      if (page.length === 0 && options.emptyIs204) {
        res.writeHead(204).end();
        return;
      }
      const more = options.warnMore === true && offset + page.length < results.length;
      res.writeHead(200, {
        'content-type': 'application/dicom+json',
        ...(more ? { warning: '299 test: There are additional results that can be requested' } : {}),
      });
      res.end(JSON.stringify(page));
      return;
    }
    const level = parts.length === 4 ? 'series' : parts.length === 6 ? 'instance' : undefined;
    const wanted = held.filter((i) => i.study === study && i.series === series && (sop === undefined || i.sop === sop));
    if (level === undefined || wanted.length === 0) {
      res.writeHead(404).end();
      return;
    }
    if (options.closeDelimited === true) {
      // Neither a length nor chunks: the end of the connection ends the body.
      res.useChunkedEncodingByDefault = false;
      res.shouldKeepAlive = false;
    }
    await sendMultipart(
      res,
      wanted,
      (index, i) => options.part?.({ level, index, sop: i.sop, request: seen.length }) ?? 'ok',
    );
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/dicom-web`,
    seen,
    instances: held,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const BOUNDARY = 'test-archive-boundary-7d1f';

/** Writes the parts one by one, each flushed before the next, applying the part faults. */
async function sendMultipart(
  res: ServerResponse,
  instances: Instance[],
  fault: (index: number, i: Instance) => PartFault,
): Promise<void> {
  res.writeHead(200, { 'content-type': `multipart/related; type="application/dicom"; boundary=${BOUNDARY}` });
  const write = (b: Buffer | string): Promise<void> =>
    new Promise((resolve, reject) => res.write(b, (err) => (err ? reject(err) : resolve())));
  for (const [index, inst] of instances.entries()) {
    const f = fault(index, inst);
    await write(`--${BOUNDARY}\r\nContent-Type: application/dicom\r\n\r\n`);
    if (f === 'reset' || f === 'truncate') {
      // Half of the part: the ones before it are complete (their delimiter has arrived).
      await write(inst.bytes.subarray(0, inst.bytes.length >> 1));
      if (f === 'truncate') res.end();
      else {
        // Give the client the time to read what it was sent, then drop the connection (RST).
        await sleep(50);
        res.socket?.resetAndDestroy();
      }
      return;
    }
    await write(
      f === 'garbage' ? Buffer.from('<html>this is no DICOM, but an error page of a proxy</html>') : inst.bytes,
    );
    await write('\r\n');
  }
  res.end(`--${BOUNDARY}--\r\n`);
}

/** Splits a complete, in-memory multipart body: enough for the STOW-RS side of these tests. */
export function splitMultipart(body: Buffer, contentType: string): Buffer[] {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)?.[2];
  if (boundary === undefined) throw new Error(`no boundary in ${contentType}`);
  const delimiter = Buffer.from(`--${boundary}`);
  const out: Buffer[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const headersEnd = body.indexOf('\r\n\r\n', start);
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), headersEnd);
    if (headersEnd < 0 || next < 0) throw new Error('a multipart body cut short');
    out.push(body.subarray(headersEnd + 4, next));
    at = next + 2;
  }
  return out;
}
