import { WorkbenchProtocolError } from './errors.js';
import type { Reply } from './transport.js';
import type {
  Camera,
  EditorDescriptor,
  EditorInfo,
  FileAccessConfig,
  Health,
  MxnCellSummary,
  NodeInfo,
  PositionBounds,
  SelectedPosition,
  SelectedSlice,
  SelectedTime,
  ServerInfo,
  Vec3,
  ViewDirection,
  WindowKind,
  WindowListEntry,
  WindowSummary,
} from '../api/wire.js';

type Rec = Record<string, unknown>;

/** Reads the fields of one answer; a missing or mistyped field is a protocol error naming the call and the field. */
export class Fields {
  constructor(
    private readonly reply: Reply,
    readonly rec: Rec,
    private readonly where: string,
  ) {}

  static of(reply: Reply, value: unknown, where = 'body'): Fields {
    if (!isRec(value)) throw bad(reply, `${where} is not a JSON object`);
    return new Fields(reply, value, where);
  }

  sub(key: string): Fields {
    return Fields.of(this.reply, this.rec[key], `${this.where}.${key}`);
  }

  str(key: string, fallback?: string): string {
    const v = this.rec[key];
    if (typeof v === 'string') return v;
    if (fallback !== undefined && v === undefined) return fallback;
    throw this.#bad(key, 'a string');
  }

  optStr(key: string): string | null {
    const v = this.rec[key];
    if (v === undefined || v === null) return null;
    if (typeof v === 'string') return v;
    throw this.#bad(key, 'a string or null');
  }

  num(key: string, fallback?: number): number {
    const v = this.rec[key];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (fallback !== undefined && v === undefined) return fallback;
    throw this.#bad(key, 'a number');
  }

  optNum(key: string): number | null {
    const v = this.rec[key];
    if (v === undefined || v === null) return null;
    return this.num(key);
  }

  bool(key: string, fallback?: boolean): boolean {
    const v = this.rec[key];
    if (typeof v === 'boolean') return v;
    if (fallback !== undefined && v === undefined) return fallback;
    throw this.#bad(key, 'a boolean');
  }

  strings(key: string, fallback?: string[]): string[] {
    const v = this.rec[key];
    if (v === undefined && fallback !== undefined) return fallback;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    throw this.#bad(key, 'an array of strings');
  }

  vec3(key: string): Vec3 {
    const v = this.rec[key];
    if (isVec3(v)) return [v[0], v[1], v[2]];
    throw this.#bad(key, 'an array of 3 numbers');
  }

  optVec3(key: string): Vec3 | null {
    const v = this.rec[key];
    return v === null || v === undefined ? null : this.vec3(key);
  }

  record(key: string, fallback?: Rec): Rec {
    const v = this.rec[key];
    if (v === undefined && fallback !== undefined) return fallback;
    if (isRec(v)) return v;
    throw this.#bad(key, 'an object');
  }

  fail(message: string): WorkbenchProtocolError {
    return bad(this.reply, `${this.where}: ${message}`);
  }

  #bad(key: string, what: string): WorkbenchProtocolError {
    return bad(this.reply, `${this.where}.${key} should be ${what}, got ${JSON.stringify(this.rec[key]) ?? 'nothing'}`);
  }
}

/**
 * The JSON of an answer. An answer that names another content type is refused even when its
 * body happens to parse: a proxy's or another service's page is not the workbench's answer.
 * Without a content type the body decides.
 */
export function parseJson(reply: Reply): unknown {
  const type = header(reply, 'content-type');
  if (type !== '' && !/\bjson\b/i.test(type))
    throw bad(
      reply,
      `the answer has content-type ${type.slice(0, 80)} where JSON was expected (${reply.body.length} bytes)`,
    );
  try {
    return JSON.parse(reply.body.toString('utf8'));
  } catch (err) {
    throw bad(
      reply,
      `the answer is not JSON (${err instanceof Error ? err.message : String(err)}; ${reply.body.length} bytes, content-type ${type || 'none'})`,
    );
  }
}

/** One header of an answer as text (the first value of a repeated one), '' when absent. */
export function header(reply: Reply, name: string): string {
  const v = reply.headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/** `{data, meta}` answers of discovery and data-storage calls; a bare body (seen in mocks and quirks) is taken as the data. */
export function parseEnvelope(reply: Reply): { data: unknown; meta: Rec } {
  const body = parseJson(reply);
  if (isRec(body) && 'data' in body) return { data: body.data, meta: isRec(body.meta) ? body.meta : {} };
  return { data: body, meta: {} };
}

export function bad(reply: Reply, message: string): WorkbenchProtocolError {
  return new WorkbenchProtocolError(
    `${reply.target.method} ${reply.target.path}: ${message}`,
    reply.target,
    reply.status,
  );
}

export function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isVec3(v: unknown): v is [number, number, number] {
  return Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'number' && Number.isFinite(x));
}

export function serverInfo(f: Fields): ServerInfo {
  const caps = isRec(f.rec.capabilities) ? f.rec.capabilities : {};
  const modes = Array.isArray(caps.transfer_modes) ? caps.transfer_modes : f.rec.transfer_modes;
  return {
    name: f.str('name', ''),
    api_version: f.str('api_version', ''),
    engine_version: typeof f.rec.engine_version === 'string' ? f.rec.engine_version : f.str('mitk_version', ''),
    transfer_modes: Array.isArray(modes) ? modes.filter((m): m is string => typeof m === 'string') : [],
    documentation_url: f.optStr('documentation_url'),
  };
}

export function health(f: Fields): Health {
  const checks: Record<string, string> = {};
  for (const [k, v] of Object.entries(f.record('checks', {}))) if (typeof v === 'string') checks[k] = v;
  return { status: f.str('status', ''), checks, uptime_seconds: f.optNum('uptime_seconds') };
}

export function fileAccess(f: Fields): FileAccessConfig {
  const restricted = f.bool('restrictions_active');
  return {
    mode: f.str('mode', restricted ? 'allowed-directories' : 'unrestricted'),
    restrictions_active: restricted,
    max_active_temp_dirs_per_ip: f.num('max_active_temp_dirs_per_ip', 5),
    allowed_paths: f.strings('allowed_paths', []),
  };
}

export function node(f: Fields): NodeInfo {
  return {
    uid: f.str('uid'),
    name: f.str('name', ''),
    path: f.str('path', ''),
    parent_uid: f.optStr('parent_uid'),
    data_type: f.optStr('data_type'),
    children_count: f.num('children_count', 0),
    timestamp: f.num('timestamp', 0),
  };
}

function positionBounds(f: Fields): PositionBounds {
  return { min_position: f.optVec3('min_position'), max_position: f.optVec3('max_position') };
}

export function selectedPosition(f: Fields): SelectedPosition {
  return { position: f.vec3('position'), bounds: positionBounds(f.sub('bounds')) };
}

export function selectedTime(f: Fields): SelectedTime {
  const b = f.sub('bounds');
  return {
    timepoint_ms: f.num('timepoint_ms'),
    timestep: f.num('timestep'),
    bounds: {
      min_timepoint_ms: b.num('min_timepoint_ms'),
      max_timepoint_ms: b.num('max_timepoint_ms'),
      steps: b.num('steps'),
    },
  };
}

export function editorDescriptor(f: Fields): EditorDescriptor {
  return { alias: f.str('alias'), plugin_id: f.str('plugin_id', ''), active: f.bool('active') };
}

export function editorInfo(f: Fields): EditorInfo {
  return { ...editorDescriptor(f), windows: f.strings('windows', []) };
}

function kind(f: Fields): WindowKind {
  const k = f.str('kind');
  if (k === '2d' || k === '3d') return k;
  throw f.fail(`window kind '${k}' is neither '2d' nor '3d'`);
}

/** View directions are passed through as the server names them (a newer server may add one). */
function viewDirection(f: Fields): { view_direction?: ViewDirection } {
  const v = f.optStr('view_direction');
  return v === null ? {} : { view_direction: v as ViewDirection };
}

export function windowEntry(f: Fields): WindowListEntry {
  const entry: WindowListEntry = { id: f.str('id'), kind: kind(f), ...viewDirection(f) };
  if ('links' in f.rec) {
    entry.display_name = f.optStr('name');
    entry.links = f.record('links');
  }
  return entry;
}

export function windowSummary(f: Fields): WindowSummary {
  const k = kind(f);
  return {
    id: f.str('id'),
    kind: k,
    ...viewDirection(f),
    has_camera: f.bool('has_camera', true),
    has_selected_slice: f.bool('has_selected_slice', k === '2d'),
  };
}

export function mxnCellSummary(f: Fields): MxnCellSummary {
  return {
    ...windowSummary(f),
    display_name: f.optStr('name'),
    links: f.record('links', {}),
    has_selected_position: f.bool('has_selected_position', true),
  };
}

export function camera(f: Fields): Camera {
  return {
    position: f.vec3('position'),
    focal_point: f.vec3('focal_point'),
    view_up: f.vec3('view_up'),
    parallel_scale: f.optNum('parallel_scale'),
    perspective_angle: f.optNum('perspective_angle'),
  };
}

export function selectedSlice(f: Fields): SelectedSlice {
  const b = f.sub('bounds');
  return { step: f.num('step'), position: f.vec3('position'), bounds: { steps: b.num('steps'), ...positionBounds(b) } };
}
