import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startReferenceWorkbench,
  type ReferenceWorkbenchHandle,
  type ReferenceWorkbenchOptions,
} from '../../src/sim/server.js';
import type { WorkbenchInternals } from '../../src/sim/workbench.js';

/** A reference workbench on 127.0.0.1 and a free port, with a small fetch helper for tests. */
export interface TestWorkbench extends ReferenceWorkbenchHandle {
  /** Server root plus `/api/v1`. */
  api: string;
  /** `fetch` of an API path (e.g. `/info`), with a JSON body when `json` is given. */
  call(method: string, path: string, init?: CallInit): Promise<Answer>;
}

export interface CallInit {
  json?: unknown;
  /** Raw body text or bytes; wins over `json`. */
  body?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text: string;
  // Tests read whatever JSON came back.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export async function startTestWorkbench(
  options: ReferenceWorkbenchOptions = {},
  internals: WorkbenchInternals = {},
): Promise<TestWorkbench> {
  const handle = await startReferenceWorkbench({ host: '127.0.0.1', port: 0, ...options }, internals);
  const api = `${handle.url}/api/v1`;
  const call = async (method: string, path: string, init: CallInit = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...init.headers };
    let body: string | Uint8Array | undefined = init.body;
    if (body === undefined && init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${api}${path}`, { method, headers, body });
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    const isJson = (res.headers.get('content-type') ?? '').includes('application/json');
    return { status: res.status, headers: res.headers, bytes, text, json: isJson ? JSON.parse(text) : undefined };
  };
  return { ...handle, api, call };
}

/** Runs `fn` with a workbench and stops it afterwards, whatever happens. */
export async function withWorkbench<T>(
  options: ReferenceWorkbenchOptions,
  fn: (wb: TestWorkbench) => Promise<T>,
): Promise<T> {
  const wb = await startTestWorkbench(options);
  try {
    return await fn(wb);
  } finally {
    await wb.stop();
  }
}

/** A temporary directory removed after `fn`. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-test-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
