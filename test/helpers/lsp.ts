import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * A language-server client over stdio, as an editor speaks to yaml-language-server: JSON-RPC
 * messages framed by Content-Length headers. Only what the editor tests need.
 */
export class LspClient {
  private readonly child: ChildProcess;
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners: Array<(method: string, params: unknown) => void> = [];
  /** What the server asked for with `workspace/configuration`. */
  settings: unknown = {};

  constructor() {
    const pkg = createRequire(import.meta.url).resolve('yaml-language-server/package.json');
    this.child = spawn(process.execPath, [join(dirname(pkg), 'bin', 'yaml-language-server'), '--stdio'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => this.receive(chunk));
    this.child.stderr!.resume();
  }

  request<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    this.send({ jsonrpc: '2.0', id, method, params });
    return new Promise<T>((resolve, reject) =>
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject }),
    );
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** The next notification of `method` whose params satisfy `accept`. */
  waitFor<T>(method: string, accept: (params: T) => boolean): Promise<T> {
    return new Promise((resolve) => {
      const listener = (m: string, p: unknown): void => {
        if (m === method && accept(p as T)) {
          this.listeners.splice(this.listeners.indexOf(listener), 1);
          resolve(p as T);
        }
      };
      this.listeners.push(listener);
    });
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    try {
      await this.request('shutdown', null);
      this.notify('exit', null);
    } catch {
      this.child.kill();
    }
    await exited;
  }

  private send(message: unknown): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    this.child.stdin!.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.child.stdin!.write(body);
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, end).toString('ascii'))?.[1]);
      if (this.buffer.length < end + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(end + 4, end + 4 + length).toString('utf8')) as {
        id?: number;
        method?: string;
        params?: unknown;
        result?: unknown;
        error?: { message: string };
      };
      this.buffer = this.buffer.subarray(end + 4 + length);
      this.dispatch(message);
    }
  }

  private dispatch(m: {
    id?: number;
    method?: string;
    params?: unknown;
    result?: unknown;
    error?: { message: string };
  }): void {
    if (m.method !== undefined && m.id !== undefined) {
      // A request from the server: settings when it asks for them, nothing otherwise.
      const items = (m.params as { items?: unknown[] } | undefined)?.items ?? [];
      const result = m.method === 'workspace/configuration' ? items.map(() => this.settings) : null;
      this.send({ jsonrpc: '2.0', id: m.id, result });
      return;
    }
    if (m.method !== undefined) {
      for (const listener of [...this.listeners]) listener(m.method, m.params);
      return;
    }
    const waiting = m.id !== undefined ? this.pending.get(m.id) : undefined;
    if (!waiting) return;
    this.pending.delete(m.id!);
    if (m.error) waiting.reject(new Error(m.error.message));
    else waiting.resolve(m.result);
  }
}
