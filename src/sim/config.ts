import { checkFaults, FaultSpecError, parseFaults, type FaultSpec } from './faults.js';
import type { EditorAlias } from './viewer/viewer.js';

/** Options of the reference workbench, for `startReferenceWorkbench` and `wbplay serve`. */
export interface ReferenceWorkbenchOptions {
  /** Interface to listen on; 127.0.0.1 by default. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** When set, every request but /health and /info needs `Authorization: Bearer <token>`. */
  token?: string;
  /** File-reference transfers may only touch files inside these directories. */
  allowedDirs?: string[];
  /** Image files loaded as top-level nodes at start-up. */
  open?: string[];
  /** Editors that start closed. */
  inactive?: EditorAlias[];
  /** Scripted faults: a spec string (see `FAULT_SPEC_HELP`) or the same as an object. */
  faults?: string | FaultSpec;
  /** Append one JSON line per request to this file. */
  events?: string;
  /** Requests per minute and client IP; no limit unless set. */
  rateLimitPerMinute?: number;
  /** Largest request body; 512 MB by default, as in the real server. */
  maxPayloadBytes?: number;
  /** `localhost` (default) accepts loopback clients only. */
  clientAccess?: 'localhost' | 'all';
  /** File-reference download directories kept per client IP; 5 by default. */
  maxTempDirsPerIp?: number;
  /** `name` in /info. */
  name?: string;
  /** `engine_version` (and `mitk_version`) in /info. */
  engineVersion?: string;
}

export interface WorkbenchConfig {
  host: string;
  port: number;
  token: string | undefined;
  allowedDirs: string[];
  open: string[];
  inactive: EditorAlias[];
  faults: FaultSpec;
  events: string | undefined;
  rateLimitPerMinute: number | undefined;
  maxPayloadBytes: number;
  clientAccess: 'localhost' | 'all';
  maxTempDirsPerIp: number;
  name: string;
  engineVersion: string;
}

export const DEFAULT_NAME = 'MITK Workbench REST API (wbplay reference workbench)';
/** The MITK release whose REST API (contract 1.2.0) the reference workbench answers like. */
export const DEFAULT_ENGINE_VERSION = '2026.06.00';
export const DEFAULT_MAX_PAYLOAD_BYTES = 512 * 1024 * 1024;

/** A bad option, with the option's name so the message can say what to change. */
export class WorkbenchConfigError extends Error {
  override name = 'WorkbenchConfigError';
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(`${option}: ${message}`);
  }
}

function positiveInteger(
  option: string,
  value: number | undefined,
  fallback: number | undefined,
  min = 1,
): number | undefined {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min)
    throw new WorkbenchConfigError(option, `must be a whole number of at least ${min}, got ${value}`);
  return value;
}

/** Fills the defaults and checks every option; throws `WorkbenchConfigError`. */
export function resolveConfig(options: ReferenceWorkbenchOptions = {}): WorkbenchConfig {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new WorkbenchConfigError('port', `must be from 0 to 65535, got ${port}`);
  if (options.token !== undefined && (options.token === '' || /\s/.test(options.token))) {
    throw new WorkbenchConfigError('token', 'must be a non-empty string without spaces');
  }
  for (const alias of options.inactive ?? []) {
    if (alias !== 'stdmulti' && alias !== 'mxn')
      throw new WorkbenchConfigError('inactive', `'${String(alias)}' is not an editor; use stdmulti or mxn`);
  }
  const clientAccess = options.clientAccess ?? 'localhost';
  if (clientAccess !== 'localhost' && clientAccess !== 'all')
    throw new WorkbenchConfigError('clientAccess', `use 'localhost' or 'all', got '${String(clientAccess)}'`);
  for (const dir of options.allowedDirs ?? []) {
    if (typeof dir !== 'string' || dir === '')
      throw new WorkbenchConfigError('allowedDirs', 'every entry must be a directory path');
  }
  return {
    host: options.host ?? '127.0.0.1',
    port,
    token: options.token,
    allowedDirs: [...(options.allowedDirs ?? [])],
    open: [...(options.open ?? [])],
    inactive: [...(options.inactive ?? [])],
    faults: resolveFaults(options.faults),
    events: options.events,
    rateLimitPerMinute: positiveInteger('rateLimitPerMinute', options.rateLimitPerMinute, undefined),
    maxPayloadBytes: positiveInteger('maxPayloadBytes', options.maxPayloadBytes, DEFAULT_MAX_PAYLOAD_BYTES)!,
    clientAccess,
    maxTempDirsPerIp: positiveInteger('maxTempDirsPerIp', options.maxTempDirsPerIp, 5)!,
    name: options.name ?? DEFAULT_NAME,
    engineVersion: options.engineVersion ?? DEFAULT_ENGINE_VERSION,
  };
}

function resolveFaults(faults: string | FaultSpec | undefined): FaultSpec {
  try {
    return typeof faults === 'string' ? parseFaults(faults) : checkFaults(faults ?? { rules: [] });
  } catch (err) {
    if (err instanceof FaultSpecError) throw new WorkbenchConfigError('faults', err.message);
    throw err;
  }
}
