import { WorkbenchUsageError } from './errors.js';
import { float, floats } from './json-body.js';
import { Fields, parseJson, selectedPosition, selectedTime } from './parse.js';
import { captureScreenshot } from './screenshot.js';
import type { CallOptions, Transport } from './transport.js';
import type { Screenshot, ScreenshotOptions, SelectedPosition, SelectedTime, UpdateTarget, Vec3 } from '../api/wire.js';

/** Set the time by one of: a time point in milliseconds, or a zero-based step. */
export type TimeTarget = { timepoint_ms: number; timestep?: never } | { timestep: number; timepoint_ms?: never };

/** Global rendering calls: redraw, fit, crosshair, time, application screenshot. Answers are bare JSON or 204. */
export class Rendering {
  constructor(private readonly t: Transport) {}

  /** Redraws the render windows: all (default), only 2D or only 3D. */
  async update(target: UpdateTarget = 'all', call?: CallOptions): Promise<void> {
    if (!['all', '2d', '3d'].includes(target))
      throw invalid(`update target must be 'all', '2d' or '3d', got '${String(target)}'`);
    await this.t.send({ method: 'POST', path: '/rendering/update', json: { type: target }, call });
  }

  /** Fits the views: to all visible data (no UIDs), to one node, or to several nodes' combined geometry. */
  async reinit(uids?: string | readonly string[], call?: CallOptions): Promise<void> {
    const list = uids === undefined ? undefined : typeof uids === 'string' ? [uids] : [...uids];
    if (list !== undefined && (list.length === 0 || !list.every((u) => typeof u === 'string' && u !== ''))) {
      throw invalid('reinit needs at least one node UID (or none at all, to fit all visible data)');
    }
    await this.t.send({ method: 'POST', path: '/rendering/reinit', json: list ? { uids: list } : {}, call });
  }

  async selectedPosition(call?: CallOptions): Promise<SelectedPosition> {
    const reply = await this.t.send({ method: 'GET', path: '/rendering/selected-position', call });
    return selectedPosition(Fields.of(reply, parseJson(reply)));
  }

  /** Moves the crosshair of the standard editor to world coordinates (mm). */
  async setSelectedPosition(position: Vec3, call?: CallOptions): Promise<void> {
    await this.t.send({
      method: 'PUT',
      path: '/rendering/selected-position',
      json: { position: positionBody(position) },
      call,
    });
  }

  async time(call?: CallOptions): Promise<SelectedTime> {
    const reply = await this.t.send({ method: 'GET', path: '/rendering/selected-time', call });
    return selectedTime(Fields.of(reply, parseJson(reply)));
  }

  /** Out-of-range steps are not clamped: the server answers RENDERING_ERROR. */
  async setTime(target: TimeTarget, call?: CallOptions): Promise<void> {
    const hasMs = target.timepoint_ms !== undefined;
    const hasStep = target.timestep !== undefined;
    if (hasMs === hasStep) throw invalid('give exactly one of timepoint_ms or timestep');
    if (hasMs && !Number.isFinite(target.timepoint_ms))
      throw invalid(`timepoint_ms must be a finite number, got ${target.timepoint_ms}`);
    if (hasStep && !(Number.isInteger(target.timestep) && (target.timestep ?? -1) >= 0)) {
      throw invalid(`timestep must be a zero-based integer, got ${target.timestep}`);
    }
    const body = hasMs ? { timepoint_ms: float(target.timepoint_ms ?? 0) } : { timestep: target.timestep };
    await this.t.send({ method: 'PUT', path: '/rendering/selected-time', json: body, call });
  }

  /** The whole application window. */
  async screenshot(opts?: ScreenshotOptions & CallOptions): Promise<Screenshot> {
    return captureScreenshot(this.t, '/rendering/screenshot', opts);
  }
}

/** Exactly three finite numbers, sent as floats (world coordinates). */
export function positionBody(position: Vec3): ReturnType<typeof floats> {
  const p = position as unknown;
  if (!Array.isArray(p) || p.length !== 3 || !p.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw invalid(`a position is exactly three finite numbers [x, y, z], got ${JSON.stringify(p)}`);
  }
  return floats(p as number[]);
}

function invalid(message: string): WorkbenchUsageError {
  return new WorkbenchUsageError('INVALID_ARGUMENT', message);
}
