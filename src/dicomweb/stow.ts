/**
 * STOW-RS (PS3.18 10.5): part-10 instances into a study, as one multipart/related request whose
 * body is streamed from the buffers given. Storing is made idempotent from outside: the
 * instances already in the archive (found by QIDO-RS) are not sent, and a POST is repeated only
 * when the archive asked for it (503 or 429 with Retry-After), after looking again at what it
 * holds by then, since a failed POST may have stored some of its instances.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { firstString, type DicomJson } from './attributes.js';
import { DicomwebError } from './errors.js';
import { resourcePath, uidTag } from './labels.js';
import { readAll, type Answer, type Transport } from './transport.js';
import type { RetryRunner, StoreResult } from './types.js';

export interface StoreInstance {
  sopInstanceUid: string;
  seriesInstanceUid: string;
  bytes: Uint8Array;
}

export interface StoreContext {
  transport: Transport;
  retry: RetryRunner;
  /** The SOP Instance UIDs the archive holds in a series; none when it has no such series. */
  instanceUids(study: string, series: string): Promise<string[]>;
}

const FAILED_SOP_SEQUENCE = '00081198';
const REFERENCED_SOP_SEQUENCE = '00081199';
const REFERENCED_SOP_INSTANCE_UID = '00081155';
const FAILURE_REASON = '00081197';
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** The failure reasons of PS3.18 (Table 10.5.3-1) and PS3.4's Storage status classes. */
const REASONS: Record<number, string> = {
  0x0110: 'processing failure',
  0x0122: 'SOP class not supported',
  0x0124: 'not authorized',
  0xa700: 'out of resources',
  0xa900: 'the data set does not match its SOP class',
  0xc000: 'cannot understand',
  0xc122: 'transfer syntax not supported',
};

export async function store(context: StoreContext, study: string, instances: StoreInstance[]): Promise<StoreResult> {
  const unique = [...new Map(instances.map((i) => [i.sopInstanceUid, i])).values()];
  const seriesUids = [...new Set(unique.map((i) => i.seriesInstanceUid))];
  const held = async (): Promise<Set<string>> => {
    const all = new Set<string>();
    for (const series of seriesUids) for (const sop of await context.instanceUids(study, series)) all.add(sop);
    return all;
  };
  const first = await held();
  const present = unique.filter((i) => first.has(i.sopInstanceUid)).map((i) => i.sopInstanceUid);
  const stored: string[] = [];
  let pending = unique.filter((i) => !first.has(i.sopInstanceUid));
  if (pending.length === 0) return { stored, present };

  await context.retry(async (attempt) => {
    if (attempt > 1) {
      // What the failed POST stored meanwhile was taken now, and is not sent again.
      const now = await held().catch((err: unknown) => {
        throw err instanceof DicomwebError ? err.with({ retryable: false }) : err;
      });
      for (const i of pending) if (now.has(i.sopInstanceUid)) stored.push(i.sopInstanceUid);
      pending = pending.filter((i) => !now.has(i.sopInstanceUid));
      if (pending.length === 0) return;
    }
    try {
      const taken = await post(context.transport, study, pending);
      stored.push(...taken);
    } catch (err) {
      if (!(err instanceof DicomwebError)) throw err;
      const asked = (err.status === 503 || err.status === 429) && err.retryAfterMs !== undefined;
      throw asked ? err : err.with({ retryable: false });
    }
  });
  return { stored, present };
}

/** One STOW-RS request; returns the SOP Instance UIDs the archive took, throws STORE_FAILED for refusals. */
async function post(transport: Transport, study: string, instances: StoreInstance[]): Promise<string[]> {
  const boundary = boundaryFor(instances);
  const head = (i: number): Buffer =>
    Buffer.from(`${i === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`, 'latin1');
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1');
  const length = instances.reduce((sum, inst, i) => sum + head(i).length + inst.bytes.length, tail.length);
  function* pieces(): Generator<Uint8Array> {
    for (const [i, inst] of instances.entries()) {
      yield head(i);
      yield inst.bytes;
    }
    yield tail;
  }
  const answer = await transport.send({
    method: 'POST',
    path: resourcePath(study),
    headers: {
      'content-type': `multipart/related; type="application/dicom"; boundary=${boundary}`,
      accept: 'application/dicom+json',
    },
    body: { length, open: () => Readable.from(pieces(), { objectMode: false }) },
    accept: [409],
    read: (a) => readAnswer(a, transport.label),
  });
  const sent = instances.map((i) => i.sopInstanceUid);
  const failed = answer.failed.filter((f) => sent.includes(f.sop));
  if (answer.status === 409 && failed.length === 0)
    throw new DicomwebError(
      'STORE_FAILED',
      `the archive ${transport.label} refused to store ${sent.length} instance(s) (409)`,
      {
        status: 409,
        retryable: false,
      },
    );
  if (failed.length > 0) {
    const list = failed.map((f) => `${uidTag(f.sop)} (${reasonText(f.reason)})`).join(', ');
    throw new DicomwebError(
      'STORE_FAILED',
      `the archive ${transport.label} refused ${failed.length} of ${sent.length} instance(s): ${list}`,
      { status: answer.status, retryable: false, ...(failed[0] ? { sopInstanceUid: failed[0].sop } : {}) },
    );
  }
  const refused = new Set(answer.failed.map((f) => f.sop));
  return answer.referenced !== undefined
    ? sent.filter((s) => answer.referenced!.has(s))
    : sent.filter((s) => !refused.has(s));
}

interface StoreAnswer {
  status: number;
  failed: { sop: string; reason: number | undefined }[];
  /** The instances the archive lists as stored; undefined when it sent no list. */
  referenced: Set<string> | undefined;
}

async function readAnswer(answer: Answer, label: string): Promise<StoreAnswer> {
  const bytes = await readAll(answer.body, MAX_ANSWER_BYTES, label);
  const out: StoreAnswer = { status: answer.status, failed: [], referenced: undefined };
  if (bytes.length === 0) return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    // Some archives answer in XML whatever was asked; the status alone then says it.
    return out;
  }
  const json = (Array.isArray(parsed) ? parsed[0] : parsed) as DicomJson | undefined;
  if (typeof json !== 'object' || json === null) return out;
  for (const item of sequence(json, FAILED_SOP_SEQUENCE)) {
    const sop = firstString(item, REFERENCED_SOP_INSTANCE_UID);
    const reason = item[FAILURE_REASON]?.Value?.[0];
    if (sop !== undefined) out.failed.push({ sop, reason: typeof reason === 'number' ? reason : Number(reason) });
  }
  if (json[REFERENCED_SOP_SEQUENCE] !== undefined) {
    out.referenced = new Set();
    for (const item of sequence(json, REFERENCED_SOP_SEQUENCE)) {
      const sop = firstString(item, REFERENCED_SOP_INSTANCE_UID);
      if (sop !== undefined) out.referenced.add(sop);
    }
  }
  return out;
}

function sequence(json: DicomJson, tag: string): DicomJson[] {
  const items = json[tag]?.Value ?? [];
  return items.filter((i): i is DicomJson => typeof i === 'object' && i !== null);
}

function reasonText(reason: number | undefined): string {
  if (reason === undefined || !Number.isFinite(reason)) return 'no reason given';
  const hex = `0x${reason.toString(16).toUpperCase().padStart(4, '0')}`;
  const known =
    REASONS[reason] ??
    (reason >> 8 === 0xa7
      ? 'out of resources'
      : reason >> 8 === 0xa9
        ? 'the data set does not match its SOP class'
        : reason >> 12 === 0xc
          ? 'cannot understand'
          : undefined);
  return known === undefined ? `failure ${hex}` : `${hex} ${known}`;
}

/** A boundary that occurs in no instance (a random one practically never does; checked all the same). */
function boundaryFor(instances: StoreInstance[]): string {
  for (;;) {
    const boundary = `wbplay-${randomBytes(16).toString('hex')}`;
    const needle = Buffer.from(`--${boundary}`, 'latin1');
    if (!instances.some((i) => Buffer.from(i.bytes.buffer, i.bytes.byteOffset, i.bytes.length).includes(needle)))
      return boundary;
  }
}
