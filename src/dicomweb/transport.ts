/**
 * One HTTP exchange with the archive: the URL below its root, the login on every request, the
 * timeouts, the mapping of failures to DicomwebError and one record per exchange. Everything
 * above it (searches, retrievals, stores) speaks in paths and answers.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import { AnswerBody, guardedConnector } from './answer-body.js';
import { authorization, checkCleartext } from './credentials.js';
import { DicomwebError, isNetworkFailure, networkError, retryAfterMs, statusError } from './errors.js';
import { archiveLabel, sentPath, shownPath, type Segment } from './labels.js';
import { trustedCertificates } from './trust.js';
import type { ArchiveOptions, ArchiveRequest } from './types.js';

export const DEFAULT_TIMEOUT_MS = 60_000;
/** The most of an error answer read (for nothing but freeing the connection). */
const ERROR_BODY_BYTES = 64 * 1024;

/** An answer being read: its body counts into the exchange's record as it is consumed. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: AsyncIterable<Uint8Array>;
}

export interface Call<T> {
  method: 'GET' | 'POST';
  path: Segment[];
  /** Parameters in order; a name may repeat. Records keep the names only. */
  query?: [string, string][];
  headers?: Record<string, string>;
  /** A streamed request body of known length. */
  body?: { length: number; open: () => Readable };
  /** Non-2xx statuses handed to `read` rather than thrown (STOW-RS's 409 carries the failures). */
  accept?: number[];
  read(answer: Answer): Promise<T>;
}

export class Transport {
  readonly label: string;
  readonly timeoutMs: number;
  private readonly base: URL;
  private readonly login: string | undefined;
  private dispatcher: Promise<Dispatcher> | undefined;
  /** The bodies being read, for the guard of undici's parser (see answer-body.ts). */
  private readonly open = new Set<AnswerBody>();

  constructor(private readonly options: ArchiveOptions) {
    let base: URL;
    try {
      base = new URL(options.url);
    } catch {
      throw new DicomwebError('ARCHIVE_UNREACHABLE', `the archive URL ${archiveLabel(options.url)} is not a URL`);
    }
    this.label = archiveLabel(options.url);
    if (base.protocol !== 'http:' && base.protocol !== 'https:')
      throw new DicomwebError('ARCHIVE_UNREACHABLE', `the archive URL ${this.label} is not http:// or https://`);
    // User info and query in the configured URL are never sent: a login goes in its header only.
    base.username = '';
    base.password = '';
    base.search = '';
    base.hash = '';
    base.pathname = base.pathname.replace(/\/+$/, '');
    this.base = base;
    checkCleartext(base, options.credentials, options.allowInsecureCredentials === true);
    this.login = options.credentials === undefined ? undefined : authorization(options.credentials);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Made on first use: an https archive's trust store is read from disk then. */
  private agent(): Promise<Dispatcher> {
    this.dispatcher ??= (async () => {
      const tls =
        this.base.protocol === 'https:'
          ? { ca: await trustedCertificates(process.env, this.options.caFile, this.label) }
          : {};
      return new Agent({
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        keepAliveTimeout: 4_000,
        connect: guardedConnector(buildConnector({ ...tls, timeout: this.timeoutMs }), this.open),
      });
    })();
    return this.dispatcher;
  }

  async send<T>(call: Call<T>): Promise<T> {
    const shown = shownPath(call.path);
    const what = `${call.method} ${shown}`;
    const query = call.query ?? [];
    const url = new URL(this.base.href);
    url.pathname = `${this.base.pathname}${sentPath(call.path)}`;
    if (query.length > 0) url.search = new URLSearchParams(query).toString();
    const record: ArchiveRequest = { method: call.method, path: shown, query: query.map(([n]) => n), ms: 0, bytes: 0 };
    const started = performance.now();
    const signal = this.options.signal;
    try {
      const dispatcher = await this.agent();
      let res: Dispatcher.ResponseData;
      try {
        res = await request(url, {
          dispatcher,
          method: call.method,
          headers: {
            ...call.headers,
            ...(call.body === undefined ? {} : { 'content-length': String(call.body.length) }),
            ...(this.login === undefined ? {} : { authorization: this.login }),
          },
          ...(call.body === undefined ? {} : { body: call.body.open() }),
          ...(signal === undefined ? {} : { signal }),
        });
      } catch (err) {
        if (signal?.aborted === true) throw err;
        throw networkError(this.label, what, err, this.timeoutMs);
      }
      if (call.body !== undefined) record.bytes += call.body.length;
      record.status = res.statusCode;
      const body = new AnswerBody(res.body);
      this.open.add(body);
      try {
        const ok = (res.statusCode >= 200 && res.statusCode < 300) || (call.accept ?? []).includes(res.statusCode);
        if (!ok) {
          record.bytes += await drain(body);
          throw statusError(this.label, what, res.statusCode, retryAfterMs(res.headers['retry-after']));
        }
        const counted = async function* (): AsyncGenerator<Uint8Array> {
          try {
            for await (const chunk of body.chunks()) {
              record.bytes += chunk.length;
              yield chunk;
            }
          } finally {
            // A reader that stops early (an error, a part it refused) frees the connection.
            if (!body.complete) body.destroy();
          }
        };
        try {
          const result = await call.read({ status: res.statusCode, headers: res.headers, body: counted() });
          // What the reader left (an empty 204 body, an epilogue) is read, so the connection is reused.
          record.bytes += await drain(body);
          return result;
        } catch (err) {
          body.destroy();
          if (err instanceof DicomwebError || signal?.aborted === true || !isNetworkFailure(err)) throw err;
          throw networkError(this.label, what, err, this.timeoutMs);
        }
      } finally {
        this.open.delete(body);
      }
    } finally {
      record.ms = Math.round(performance.now() - started);
      this.options.onRequest?.(record);
    }
  }

  async close(): Promise<void> {
    const pending = this.dispatcher;
    this.dispatcher = undefined;
    if (pending !== undefined) await (await pending.catch(() => undefined))?.close();
  }
}

/** Reads and drops what is left of an answer, up to a bound; returns the bytes read. */
async function drain(body: AnswerBody): Promise<number> {
  let bytes = 0;
  try {
    for await (const chunk of body.chunks()) {
      bytes += chunk.length;
      if (bytes > ERROR_BODY_BYTES) break;
    }
  } catch {
    // The status says what went wrong; a body cut short adds nothing.
  } finally {
    if (!body.complete) body.destroy();
  }
  return bytes;
}

/** Reads a whole answer into memory, refusing one larger than `maxBytes`. */
export async function readAll(body: AsyncIterable<Uint8Array>, maxBytes: number, label: string): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes)
      throw new DicomwebError(
        'ARCHIVE_BAD_RESPONSE',
        `the archive ${label} sent an answer larger than ${maxBytes} bytes`,
      );
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
