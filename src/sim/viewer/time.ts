import type { SelectedTime } from '../../api/wire.js';
import { Problem } from '../problem.js';
import type { Volume } from '../../volume/volume.js';

/** A proportional time geometry: `steps` steps of `stepMs`, the first starting at `firstMs`. */
export interface TimeGeometry {
  steps: number;
  firstMs: number;
  stepMs: number;
}

/** A static image still spans one step; MITK's default step lasts 1 ms. */
const stepDuration = (v: Volume): number => (v.timeStepMs > 0 ? v.timeStepMs : 1);

/** The time geometry of the volume with the most time steps (the first of equals). */
export function timeGeometry(volumes: readonly Volume[]): TimeGeometry | null {
  let best: Volume | undefined;
  for (const v of volumes) if (!best || v.frames.length > best.frames.length) best = v;
  if (!best || best.frames.length === 0) return null;
  return { steps: best.frames.length, firstMs: best.timeOriginMs, stepMs: stepDuration(best) };
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
    return this.geometry ? this.geometry.firstMs + this.step * this.geometry.stepMs : 0;
  }

  state(): SelectedTime {
    const g = this.geometry;
    return {
      bounds: g
        ? { max_timepoint_ms: g.firstMs + g.steps * g.stepMs, min_timepoint_ms: g.firstMs, steps: g.steps }
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
    const g = this.geometry;
    const step = g && ms >= g.firstMs ? Math.floor((ms - g.firstMs) / g.stepMs) : 0;
    this.setStep(step);
  }

  /** The frame of a volume at the selected time point (each volume has its own time geometry). */
  frameOf(v: Volume): number {
    if (v.frames.length <= 1) return 0;
    const step = Math.floor((this.timePoint() - v.timeOriginMs) / stepDuration(v));
    return Math.min(Math.max(0, step), v.frames.length - 1);
  }
}
