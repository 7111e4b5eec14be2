import type { DataSet } from 'dicom-parser';
import { numbers, raw } from './data-set.js';
import { TAG, type SliceHeader } from './slice-header.js';
import { add, cross, dot, norm, sub } from './vec3.js';
import { gantryTilt, isRegularTilt, isSheared, type GantryTilt } from './gantry-tilt.js';

/**
 * MITK's split of a folder's files into blocks (`DICOMITKSeriesGDCMReader::AnalyzeInputFiles`
 * with `DICOMFileReaderSelector`): the built-in configurations are tried in MITK's order; the
 * first that gives one block wins, else the one with the fewest.
 */
export interface Block {
  /** Files of each time step, slices ascending along row × column. */
  timeSteps: SliceHeader[][];
  /** Why the files were split from the others (MITK's `VolumeSplitReason`), when they were. */
  splitReasons: Array<[string, string?]>;
  /** A regular gantry tilt, measured between the first and last slice, that the reader shears away. */
  tilt?: GantryTilt;
}

export interface BlockResult {
  configuration: string;
  blocks: Block[];
}

interface Configuration {
  label: string;
  split: string[];
  sort: Array<'position' | string>;
  strict: boolean;
  expectDistanceOne: boolean;
  /** Absolute tolerance of the equal-spacing check; undefined = 0.3 × the first gap. */
  tolerance?: number;
  timeSteps: boolean;
}

const SERIES_KEYS = [
  TAG.seriesUid,
  TAG.seriesDescription,
  'x00181030', // ProtocolName
  'x00200011', // SeriesNumber
  TAG.modality,
  'x00180015', // BodyPartExamined
  'x00180024', // SequenceName
];
const WITH_ACQUISITION = [...SERIES_KEYS, TAG.acquisitionNumber];
const BY_TIME = [TAG.acquisitionTime, TAG.triggerTime, TAG.sopInstanceUid];

/** `Modules/DICOM/resource/configurations/3D/*.xml` then `3DnT/*.xml`, in the order MITK loads them. */
const CONFIGURATIONS: Configuration[] = [
  {
    label: 'Instance Number, consecutive',
    split: WITH_ACQUISITION,
    sort: [TAG.instanceNumber, TAG.sopInstanceUid],
    strict: true,
    expectDistanceOne: true,
    timeSteps: false,
  },
  {
    label: 'Instance Number, non-consecutive',
    split: WITH_ACQUISITION,
    sort: [TAG.instanceNumber, TAG.sopInstanceUid],
    strict: false,
    expectDistanceOne: false,
    timeSteps: false,
  },
  {
    label: 'Slice Location',
    split: WITH_ACQUISITION,
    sort: [TAG.sliceLocation, TAG.sopInstanceUid],
    strict: true,
    expectDistanceOne: false,
    timeSteps: false,
  },
  {
    label: 'Image Position',
    split: SERIES_KEYS,
    sort: ['position', ...BY_TIME],
    strict: false,
    expectDistanceOne: false,
    timeSteps: false,
  },
  {
    label: 'Image Position by Acquisition',
    split: WITH_ACQUISITION,
    sort: ['position', ...BY_TIME],
    strict: false,
    expectDistanceOne: false,
    timeSteps: false,
  },
  {
    label: 'Default Multi Purpose 3D+t config',
    split: [TAG.seriesUid],
    sort: [
      'position',
      TAG.acquisitionNumber,
      TAG.acquisitionDate,
      TAG.acquisitionTime,
      TAG.triggerTime,
      TAG.sopInstanceUid,
    ],
    strict: false,
    expectDistanceOne: false,
    tolerance: 0.005,
    timeSteps: true,
  },
];

/** The mandatory split keys (`EnsureMandatorySortersArePresent`); orientation to 5 decimals. */
function mandatoryKey(h: SliceHeader): string {
  const ds = h.ds;
  const iop = raw(ds, TAG.orientation);
  const orientation =
    iop === undefined
      ? ''
      : iop
          .split('\\')
          .map((v) => cutDecimals(v))
          .join('\\');
  return [
    h.rows,
    h.columns,
    raw(ds, TAG.pixelSpacing) ?? '',
    raw(ds, TAG.imagerPixelSpacing) ?? '',
    orientation,
    raw(ds, TAG.sliceThickness) ?? '',
    raw(ds, TAG.frames) ?? '',
  ].join('|');
}

function cutDecimals(value: string): string {
  const n = Number(value);
  return Number.isFinite(n) ? (Math.trunc(n * 1e5) / 1e5).toString() : value.trim();
}

export function splitIntoBlocks(files: SliceHeader[]): BlockResult {
  let best: BlockResult | undefined;
  for (const config of CONFIGURATIONS) {
    const blocks = analyse(files, config);
    if (blocks.length === 0) continue;
    if (blocks.length === 1) return { configuration: config.label, blocks };
    if (best === undefined || blocks.length < best.blocks.length) best = { configuration: config.label, blocks };
  }
  return best ?? { configuration: CONFIGURATIONS[0]!.label, blocks: [] };
}

function analyse(files: SliceHeader[], config: Configuration): Block[] {
  const groups = new Map<string, SliceHeader[]>();
  for (const h of files) {
    const key = mandatoryKey(h) + '#' + config.split.map((t) => raw(h.ds, t) ?? '').join('|');
    const list = groups.get(key);
    if (list) list.push(h);
    else groups.set(key, [h]);
  }
  const sorted: SliceHeader[][] = [];
  for (const group of groups.values()) {
    group.sort((a, b) => compare(a, b, config.sort));
    sorted.push(...(config.strict ? strictSplit(group, config) : [group]));
  }
  sorted.sort((a, b) => compare(a[0]!, b[0]!, config.sort));
  const blocks: Block[] = [];
  for (const group of sorted) blocks.push(...equidistant(group, config.tolerance));
  const condensed = config.timeSteps ? condense(blocks) : blocks;
  for (const block of condensed) {
    for (const step of block.timeSteps) ascend(step);
    const tilt = finalTilt(block.timeSteps[0]!);
    if (tilt !== undefined) block.tilt = tilt;
  }
  return condensed;
}

/** MITK's sort chain: position along row × column (ties below eps), then tags numerically. */
function compare(a: SliceHeader, b: SliceHeader, keys: Array<'position' | string>): number {
  for (const key of keys) {
    if (key === 'position') {
      if (a.position === undefined || b.position === undefined || a.orientation === undefined) continue;
      const n = normal(a.orientation);
      const d = dot(a.position, n) - dot(b.position, n);
      if (Math.abs(d) > 2.2e-14) return d;
      continue;
    }
    const va = tagNumber(a.ds, key);
    const vb = tagNumber(b.ds, key);
    if (va !== vb) return va - vb;
  }
  return 0;
}

function tagNumber(ds: DataSet, tag: string): number {
  // OFStandard::atof of what DCMTK gives; a UID compares by its leading number, as there.
  const text = raw(ds, tag);
  if (text === undefined) return 0;
  const n = parseFloat(text);
  return Number.isFinite(n) ? n : 0;
}

/** `strictSorting`: a new group where the key distance leaves the first distance by more than 1%. */
function strictSplit(group: SliceHeader[], config: Configuration): SliceHeader[][] {
  const key = config.sort[0]!;
  const value = (h: SliceHeader): number => tagNumber(h.ds, key);
  const out: SliceHeader[][] = [];
  let current: SliceHeader[] = [group[0]!];
  let first: number | undefined;
  for (let i = 1; i < group.length; i++) {
    const d = value(group[i]!) - value(group[i - 1]!);
    if (first === undefined) {
      first = d;
      if (config.expectDistanceOne && Number.isInteger(d) && Math.abs(d) !== 1) {
        out.push(current);
        current = [group[i]!];
        first = undefined;
        continue;
      }
    } else if (Math.abs(d - first) > Math.abs(first) * 0.01) {
      out.push(current);
      current = [group[i]!];
      first = undefined;
      continue;
    }
    current.push(group[i]!);
  }
  out.push(current);
  return out;
}

/** `EquiDistantBlocksSorter`: repeated passes, each taking the slices that fit equal spacing. */
function equidistant(group: SliceHeader[], absolute: number | undefined): Block[] {
  const blocks: Block[] = [];
  let remaining = group;
  while (remaining.length > 0) {
    const block: SliceHeader[] = [];
    const rest: SliceHeader[] = [];
    const reasons = new Map<string, string | undefined>();
    let step: [number, number, number] | undefined;
    let tolerance = absolute ?? 0.005;
    let lastDifferent: [number, number, number] | undefined;
    let last: [number, number, number] | undefined;
    let missing = 0;
    for (let i = 0; i < remaining.length; i++) {
      const h = remaining[i]!;
      const p = h.position;
      if (p === undefined) {
        if (block.length === 0) {
          block.push(h);
          rest.push(...remaining.slice(i + 1));
          if (rest.length > 0) reasons.set('image_position_missing', undefined);
          break;
        }
        rest.push(h);
        continue;
      }
      let fits = false;
      if (last !== undefined && same(p, last)) {
        rest.push(h);
        reasons.set('overlapping_slices', undefined);
      } else if (step === undefined && last !== undefined) {
        step = sub(p, lastDifferent!);
        if (absolute === undefined) tolerance = norm(step) * 0.3;
        // Every built-in configuration fixes a regular tilt by shearing, so such a pair stays
        // together; any shift along the row direction splits.
        const tilt = gantryTilt(lastDifferent!, p, h.orientation ?? [0, 0, 0, 0, 0, 0], 1);
        if (isSheared(tilt) && !isRegularTilt(tilt)) {
          rest.push(h);
          reasons.set('gantry_tilt_difference', undefined);
        } else {
          block.push(h);
          fits = true;
        }
      } else if (step !== undefined) {
        const error = norm(sub(add(lastDifferent!, step), p));
        if (error > tolerance) {
          rest.push(h);
          const count = Math.round(norm(sub(lastDifferent!, p)) / norm(step) - 1);
          if (missing === 0 || missing > count) {
            missing = count;
            reasons.set('slice_distance_inconsistency', String(norm(sub(lastDifferent!, p))));
          }
          if (missing < 0) reasons.set('overlapping_slices', undefined);
          else if (missing > 0 && !reasons.has('overlapping_slices')) reasons.set('missing_slices', String(missing));
        } else {
          block.push(h);
          reasons.delete('slice_distance_inconsistency');
          reasons.delete('missing_slices');
          missing = 0;
          fits = true;
        }
      } else {
        block.push(h);
        fits = true;
      }
      if (last === undefined || (fits && !same(p, last))) lastDifferent = p;
      last = p;
    }
    blocks.push({
      timeSteps: [block],
      splitReasons: rest.length > 0 ? [...reasons].map(([k, v]) => (v === undefined ? [k] : [k, v])) : [],
    });
    remaining = rest;
  }
  return blocks;
}

/** `ThreeDnTDICOMSeriesReader::Condense3DBlocks`: equal counts and equal first and last positions. */
function condense(blocks: Block[]): Block[] {
  const out: Block[] = [];
  for (const block of blocks) {
    const step = block.timeSteps[0]!;
    const target = out.find((b) => {
      const s = b.timeSteps[0]!;
      return (
        s.length === step.length &&
        s[0]!.positionText === step[0]!.positionText &&
        s.at(-1)!.positionText === step.at(-1)!.positionText &&
        step[0]!.positionText !== undefined
      );
    });
    if (target) target.timeSteps.push(step);
    else out.push({ timeSteps: [step], splitReasons: block.splitReasons });
  }
  // 3D+t blocks come first, as MITK sets them as outputs 0..k.
  return [...out.filter((b) => b.timeSteps.length > 1), ...out.filter((b) => b.timeSteps.length === 1)];
}

/**
 * The tilt `NormalDirectionConsistencySorter` hands the loader: measured between the first and
 * last slice of the final order, so the shear is as precise as the whole block allows.
 */
function finalTilt(step: SliceHeader[]): GantryTilt | undefined {
  const first = step[0]!;
  const last = step.at(-1)!;
  if (step.length < 2 || first.position === undefined || last.position === undefined || first.orientation === undefined)
    return undefined;
  const tilt = gantryTilt(first.position, last.position, first.orientation, step.length - 1);
  return isRegularTilt(tilt) ? tilt : undefined;
}

/** `NormalDirectionConsistencySorter`: slices ascend along row × column. */
function ascend(step: SliceHeader[]): void {
  const first = step[0]!;
  const last = step.at(-1)!;
  if (step.length < 2 || first.position === undefined || last.position === undefined || first.orientation === undefined)
    return;
  if (dot(sub(last.position, first.position), normal(first.orientation)) < 0) step.reverse();
}

export function normal(o: readonly number[]): [number, number, number] {
  return cross([o[0]!, o[1]!, o[2]!], [o[3]!, o[4]!, o[5]!]);
}

const same = (a: readonly number[], b: readonly number[]): boolean => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];

export { numbers };
