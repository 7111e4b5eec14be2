import { raw } from './data-set.js';
import { fail } from './errors.js';
import { TAG, type SliceHeader } from './slice-header.js';

/** mitk::eps. */
const EPS = 2.220446049250313e-16;

/**
 * The time geometry MITK gives a 3D+t block (`ITKDICOMSeriesReaderHelper::
 * ExtractTimeBoundsOfTimeSteps` and `GenerateTimeGeometry`), as the boundaries of its steps in
 * ms: step i runs from `bounds[i]` to `bounds[i + 1]`. Step 0 starts at 0, at the earliest
 * AcquisitionDate+Time of its files; a later step starts at its own earliest acquisition, ms
 * after that. Where an acquisition offset is not positive (or once it was not), the step's
 * TriggerTime range is taken instead. Each step ends where the next begins; the last at its own
 * latest time. When every bound is 0, undefined: MITK then falls back to a proportional
 * geometry of 1 ms steps.
 */
export function timeBounds(timeSteps: readonly (readonly SliceHeader[])[]): number[] | undefined {
  if (timeSteps.length < 2) return undefined;
  const baseline = stepTimes(timeSteps[0]!).acquisition?.[0];
  const list: Array<[number, number]> = [[0, 0]];
  let usedTrigger = false;
  for (const step of timeSteps.slice(1)) {
    const { acquisition, trigger } = stepTimes(step);
    let lower = acquisition && baseline !== undefined ? acquisition[0] - baseline : 0;
    let upper = acquisition && baseline !== undefined ? acquisition[1] - baseline : 0;
    if (lower < EPS || upper < EPS || usedTrigger) {
      [lower, upper] = trigger;
      usedTrigger = true;
    }
    list.push([lower, upper]);
  }
  if (list.reduce((sum, [a, b]) => sum + a + b, 0) < EPS) return undefined;
  const bounds = list.map(([lower]) => lower);
  bounds.push(list.at(-1)![1]);
  // ArbitraryTimeGeometry refuses steps that end before they start or overlap the previous one.
  for (let i = 1; i < bounds.length; i++)
    if (bounds[i]! < bounds[i - 1]!)
      fail(
        'CORRUPT',
        timeSteps[Math.min(i, timeSteps.length - 1)]![0]!.file,
        `starts time step ${Math.min(i, timeSteps.length - 1)} at ${bounds[i]} ms, before the step before it (${bounds[i - 1]} ms): its acquisition or trigger times do not follow the time steps' order`,
      );
  return bounds;
}

/** The earliest and latest acquisition (ms on one scale) and trigger time (ms, 0 when none) of a step. */
function stepTimes(step: readonly SliceHeader[]): { acquisition?: [number, number]; trigger: [number, number] } {
  let acquisition: [number, number] | undefined;
  let trigger: [number, number] | undefined;
  for (const h of step) {
    const at = dateTimeMs(raw(h.ds, TAG.acquisitionDate) ?? '', raw(h.ds, TAG.acquisitionTime) ?? '');
    if (at !== undefined)
      acquisition = acquisition ? [Math.min(acquisition[0], at), Math.max(acquisition[1], at)] : [at, at];
    const text = raw(h.ds, TAG.triggerTime)?.trim();
    const t = text ? Number.parseFloat(text) : NaN;
    if (Number.isFinite(t)) trigger = trigger ? [Math.min(trigger[0], t), Math.max(trigger[1], t)] : [t, t];
  }
  return { ...(acquisition ? { acquisition } : {}), trigger: trigger ?? [0, 0] };
}

/**
 * A DICOM date (DA) and time (TM) as whole ms, as DCMTK parses them and boost counts them: the
 * fraction of a second cut to ms. Without a date the current day is used, as MITK does.
 */
export function dateTimeMs(date: string, time: string): number | undefined {
  const t = time.trim().replace(/:/g, '');
  const m = /^(\d{2})(\d{2})?(\d{2})?(?:\.(\d{1,6}))?$/.exec(t);
  if (!m) return undefined;
  const [hh, mm, ss] = [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
  if (hh > 23 || mm > 59 || ss > 60) return undefined;
  // DCMTK holds the seconds as one double; its milliseconds are (s − trunc(s)) · 1000, cut.
  const second = Number.parseFloat(`${m[3] ?? '0'}.${m[4] ?? '0'}`);
  const ms = Math.trunc((second - Math.trunc(second)) * 1000);
  let day: number;
  const d = date.trim().replace(/\./g, '');
  if (d === '') {
    const now = new Date();
    day = Date.UTC(now.getFullYear(), now.getMonth(), now.getDate());
  } else {
    const dm = /^(\d{4})(\d{2})(\d{2})$/.exec(d);
    if (!dm) return undefined;
    const [y, mo, da] = [Number(dm[1]), Number(dm[2]), Number(dm[3])];
    if (mo < 1 || mo > 12 || da < 1 || da > 31) return undefined;
    day = Date.UTC(y, mo - 1, da);
  }
  return day + ((hh * 60 + mm) * 60 + ss) * 1000 + ms;
}
