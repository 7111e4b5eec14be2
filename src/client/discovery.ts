import { Fields, fileAccess, health, parseEnvelope, serverInfo } from './parse.js';
import type { CallOptions, Transport } from './transport.js';
import type { FileAccessConfig, Health, ServerInfo } from '../api/wire.js';

/**
 * Identity, health and file-access policy of the server. Info and file-access configuration
 * do not change while a workbench runs, so each is fetched once, on first need, and shared
 * by concurrent callers; a failed fetch is forgotten so the next call tries again.
 */
export class Discovery {
  #info: Promise<ServerInfo> | undefined;
  #fileAccess: Promise<FileAccessConfig> | undefined;

  constructor(private readonly t: Transport) {}

  info(call?: CallOptions & { refresh?: boolean }): Promise<ServerInfo> {
    if (!this.#info || call?.refresh) {
      const p = this.#fetch('/info', call).then((f) => serverInfo(f));
      p.catch(() => {
        if (this.#info === p) this.#info = undefined;
      });
      this.#info = p;
    }
    return this.#info;
  }

  fileAccess(call?: CallOptions & { refresh?: boolean }): Promise<FileAccessConfig> {
    if (!this.#fileAccess || call?.refresh) {
      const p = this.#fetch('/config/file-access', call).then((f) => fileAccess(f));
      p.catch(() => {
        if (this.#fileAccess === p) this.#fileAccess = undefined;
      });
      this.#fileAccess = p;
    }
    return this.#fileAccess;
  }

  async health(call?: CallOptions): Promise<Health> {
    return health(await this.#fetch('/health', call));
  }

  /** True when `/health` answers 2xx; never throws (any failure is false). */
  async ping(call?: CallOptions): Promise<boolean> {
    try {
      await this.t.send({ method: 'GET', path: '/health', call });
      return true;
    } catch {
      return false;
    }
  }

  async #fetch(path: string, call: CallOptions | undefined): Promise<Fields> {
    const reply = await this.t.send({ method: 'GET', path, call });
    return Fields.of(reply, parseEnvelope(reply).data, 'data');
  }
}
