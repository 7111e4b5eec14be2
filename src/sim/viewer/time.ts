import type { SelectedTime } from '../../api/wire.js';
import { Problem } from '../problem.js';
import type { Volume } from '../../volume/volume.js';

/**
 * A time geometry: `steps` steps of `stepMs`, the first starting at `firstMs` (MITK's
 * ProportionalTimeGeometry), or, with `bounds`, steps of their own lengths (its
 * ArbitraryTimeGeometry): step t runs from `bounds[t]` to `bounds[t + 1]`.
 */
export interface TimeGeometry {
  steps: number;
  firstMs: number;
  stepMs: number;
  bounds?: readonly number[];
}

/** A static image still spans one step; MITK's default step lasts 1 ms. */
const stepDuration = (v: Volume): number => (v.timeStepMs > 0 ? v.timeStepMs : 1);

function geometryOf(v: Volume): TimeGeometry {
  const bounds = v.timeBoundsMs?.length === v.frames.length + 1 ? v.timeBoundsMs : undefined;
  return {
    steps: v.frames.length,
    firstMs: bounds ? bounds[0]! : v.timeOriginMs,
    stepMs: stepDuration(v),
    ...(bounds ? { bounds } : {}),
  };
}

/** The time geometry of the volume with the most time steps (the first of equals). */
export function timeGeometry(volumes: readonly Volume[]): TimeGeometry | null {
  let best: Volume | undefined;
  for (const v of volumes) if (!best || v.frames.length > best.frames.length) best = v;
  if (!best || best.frames.length === 0) return null;
  return geometryOf(best);
}

/**
 * The last time point a geometry covers. A last step that lasts no time (all its files taken
 * at one instant) is given 1 ms, as MITK's ArbitraryTimeGeometry does (its workaround T27883).
 */
function maximumTimePoint(g: TimeGeometry): number {
  if (!g.bounds) return g.firstMs + g.steps * g.stepMs;
  const last = g.bounds[g.steps]!;
  const lastStart = g.bounds[g.steps - 1]!;
  return last === lastStart ? lastStart + 1 : last;
}

/** The step a time point falls in (`TimePointToTimeStep`); `steps` when it lies beyond the last. */
function stepAt(g: TimeGeometry, ms: number): number {
  if (ms < g.firstMs) return 0;
  if (!g.bounds) return Math.floor((ms - g.firstMs) / g.stepMs);
  const collapsed = g.bounds[g.steps] === g.bounds[g.steps - 1];
  for (let t = 0; t < g.steps; t++) {
    const end = g.bounds[t + 1]!;
    if (ms < end || (t === g.steps - 1 && collapsed && ms <= end + 1)) return t;
  }
  return g.steps;
}

/** The single, global time navigation of the workbench. */
export class TimeNavigation {
  private geometry: TimeGeometry | null = null;
  private step = 0;

  /** A reinit hands over a new geometry; the selected step is kept where it still exists. */
  reset(geometry: TimeGeometry | null): void {
    this.geometry = geometry;
    this.step = geometry ? Math.min(this.step, geometry.steps - 1) : 0;
  }

  timePoint(): number {
    const g = this.geometry;
    if (!g) return 0;
    return g.bounds ? g.bounds[this.step]! : g.firstMs + this.step * g.stepMs;
  }

  state(): SelectedTime {
    const g = this.geometry;
    return {
      bounds: g
        ? { max_timepoint_ms: maximumTimePoint(g), min_timepoint_ms: g.firstMs, steps: g.steps }
        : { max_timepoint_ms: 0, min_timepoint_ms: 0, steps: 0 },
      timepoint_ms: this.timePoint(),
      timestep: this.step,
    };
  }

  /** Unlike slices, time is not clamped: a step out of range is refused. */
  setStep(step: number): void {
    const steps = this.geometry?.steps ?? 0;
    if (steps === 0) {
      throw new Problem(
        'RENDERING_ERROR',
        'No time geometry is currently resolved; the time stepper reports zero steps.',
      );
    }
    if (step >= steps)
      throw new Problem('RENDERING_ERROR', `Resolved time step ${step} is out of range [0, ${steps}).`);
    this.step = step;
  }

  /** A time point before the first step resolves to step 0, as in MITK's time geometries. */
  setTimePoint(ms: number): void {
    this.setStep(this.geometry ? stepAt(this.geometry, ms) : 0);
  }

  /** The frame of a volume at the selected time point (each volume has its own time geometry). */
  frameOf(v: Volume): number {
    if (v.frames.length <= 1) return 0;
    const step = stepAt(geometryOf(v), this.timePoint());
    return Math.min(Math.max(0, step), v.frames.length - 1);
  }
}
