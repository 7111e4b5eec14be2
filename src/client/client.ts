import { inspect } from 'node:util';
import { Discovery } from './discovery.js';
import { Display } from './display.js';
import { Editors, type MxnEditor, type StdMultiEditor } from './editors.js';
import { Nodes } from './nodes.js';
import { Properties } from './properties.js';
import { Rendering } from './rendering.js';
import { Transport, type CallOptions, type TransportOptions } from './transport.js';
import type { FileAccessConfig, Health, ServerInfo } from '../api/wire.js';

export type ConnectOptions = TransportOptions;

/**
 * A client of one workbench. Resources hang off it (`nodes`, `properties`, `display`, `rendering`,
 * `editors`, and the shortcuts `stdmulti` and `mxn`); all share one transport. Creating it
 * makes no request.
 */
export class WorkbenchClient {
  readonly nodes: Nodes;
  readonly properties: Properties;
  /** Level window, colour map, interpolation and other display properties in MITK's forms. */
  readonly display: Display;
  readonly rendering: Rendering;
  readonly editors: Editors;
  readonly #transport: Transport;
  readonly #discovery: Discovery;

  constructor(options: ConnectOptions) {
    this.#transport = new Transport(options);
    this.#discovery = new Discovery(this.#transport);
    this.nodes = new Nodes(this.#transport, this.#discovery);
    this.properties = new Properties(this.#transport);
    this.display = new Display(this.properties);
    this.rendering = new Rendering(this.#transport);
    this.editors = new Editors(this.#transport);
  }

  /** The server root, e.g. `http://localhost:8080`. */
  get url(): string {
    return this.#transport.url;
  }

  get timeoutMs(): number {
    return this.#transport.timeoutMs;
  }

  /** Whether requests carry an API token (never the token itself). */
  get hasToken(): boolean {
    return this.#transport.hasToken;
  }

  get stdmulti(): StdMultiEditor {
    return this.editors.stdmulti;
  }

  get mxn(): MxnEditor {
    return this.editors.mxn;
  }

  /** Server identity and capabilities; fetched once and cached (`refresh: true` fetches again). */
  info(call?: CallOptions & { refresh?: boolean }): Promise<ServerInfo> {
    return this.#discovery.info(call);
  }

  /** The server's file-access policy; fetched once and cached. */
  fileAccess(call?: CallOptions & { refresh?: boolean }): Promise<FileAccessConfig> {
    return this.#discovery.fileAccess(call);
  }

  health(call?: CallOptions): Promise<Health> {
    return this.#discovery.health(call);
  }

  /** True when the workbench answers its health probe with 2xx; never throws. */
  ping(call?: CallOptions): Promise<boolean> {
    return this.#discovery.ping(call);
  }

  /** Closes pooled connections. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  // The token lives only inside the transport's private field; these keep it out of logs.
  [inspect.custom](): string {
    return `WorkbenchClient { url: '${this.url}', token: ${this.#transport.hasToken ? '[redacted]' : 'none'}, timeoutMs: ${this.timeoutMs} }`;
  }

  toString(): string {
    return `WorkbenchClient(${this.url})`;
  }

  toJSON(): Record<string, unknown> {
    return this.#transport.toJSON();
  }
}

/** Creates a client; no request is made until an operation is called. */
export function connect(options: ConnectOptions): WorkbenchClient {
  return new WorkbenchClient(options);
}
