import type { DataSet, Element } from 'dicom-parser';
import { basename } from 'node:path';
import { LABEL_DEFAULTS, type Label, type LabelGroup, type Segmentation } from '../segmentation.js';
import { segmentationVolume, type Mat3, type Vec3 } from '../volume.js';
import { numbers, parseBytes, raw, str, us } from './data-set.js';
import { cross, dot } from './vec3.js';
import { fail } from './errors.js';
import type { DicomRead } from './dicom-read.js';
import { decodeInto } from './pixel-values.js';
import { tagProperties } from './properties.js';
import { sliceHeader, type SliceHeader } from './slice-header.js';

const SEG_SOP_CLASS = '1.2.840.10008.5.1.4.1.1.66.4';

/** MITK's DICOM SEG mime type: `.dcm`, Modality SEG and the Segmentation Storage SOP class. */
export function isSegmentationFile(h: SliceHeader): boolean {
  return h.modality === 'SEG' && h.sopClassUid === SEG_SOP_CLASS && /\.dcm$/i.test(h.file);
}

/**
 * A DICOM SEG as MITK's `DICOMSegmentationIO` reads it through dcmqi: one multi-label
 * segmentation, a label per segment (its value the segment number, its name the SegmentLabel,
 * else the property type's meaning, its colour the recommended CIELab colour in RGB), all in
 * one group when SegmentsOverlap is NO, else a group per segment. The grid spans the frames'
 * positions along the plane normal; no name is set, so the node takes the file's.
 */
export async function readSegmentation(file: string, bytes: Uint8Array): Promise<DicomRead> {
  const h = sliceHeader(parseBytes(bytes, file));
  const ds = h.ds;
  const perFrame = items(ds, 'x52009230');
  const shared = items(ds, 'x52009229')[0];
  if (perFrame.length < h.frames) fail('CORRUPT', file, `describes ${perFrame.length} of its ${h.frames} frames`);
  const orientation = (numbers(nested(shared, 'x00209116') ?? ds, 'x00200037') ?? [1, 0, 0, 0, 1, 0]) as number[];
  const measures = nested(shared, 'x00289110');
  const pixelSpacing = (measures && numbers(measures, 'x00280030')) ?? numbers(ds, 'x00280030') ?? [1, 1];
  const n = cross(orientation.slice(0, 3), orientation.slice(3, 6));
  const frames = perFrame.slice(0, h.frames).map((item) => ({
    segment: us(nested(item, 'x0062000a') ?? item, 'x0062000b') ?? 1,
    position: (numbers(nested(item, 'x00209113') ?? item, 'x00200032') ?? [0, 0, 0]) as Vec3,
  }));
  const heights = frames.map((f) => dot(f.position, n));
  const lowest = Math.min(...heights);
  const distinct = [...new Set(heights.map((z) => Math.round((z - lowest) * 1e3) / 1e3))].sort((a, b) => a - b);
  const gaps = distinct.slice(1).map((z, i) => z - distinct[i]!);
  const zSpacing =
    (measures && numbers(measures, 'x00180088')?.[0]) ||
    (gaps.length > 0 ? Math.min(...gaps) : undefined) ||
    (measures && numbers(measures, 'x00180050')?.[0]) ||
    1;
  const depth = Math.round((distinct.at(-1)! - distinct[0]!) / zSpacing) + 1;
  const origin = frames[heights.indexOf(lowest)]!.position;
  const plane = h.rows * h.columns;
  const bits = new Float32Array(plane * h.frames);
  await decodeInto(h, bits, 0);
  const overlap = (str(ds, 'x00620013') ?? '').toUpperCase() !== 'NO';
  const threshold = (numbers(ds, 'x0062000e')?.[0] ?? 1) / 2;
  const labels = segments(ds);
  const groups: LabelGroup[] = (overlap ? labels.map((l) => [l]) : [labels]).map((members) => ({
    name: '',
    labels: members,
    extra: {},
    frames: [new Float32Array(plane * depth)],
  }));
  const groupOf = new Map<number, LabelGroup>();
  for (const g of groups) for (const l of g.labels) groupOf.set(l.value, g);
  frames.forEach((f, i) => {
    const group = groupOf.get(f.segment);
    if (group === undefined) return;
    const k = Math.round((heights[i]! - lowest) / zSpacing);
    const target = group.frames[0]!;
    for (let p = 0; p < plane; p++) if (bits[i * plane + p]! >= threshold) target[k * plane + p] = f.segment;
  });
  const row = orientation.slice(0, 3);
  const col = orientation.slice(3, 6);
  const direction: Mat3 = [row[0]!, col[0]!, n[0], row[1]!, col[1]!, n[1], row[2]!, col[2]!, n[2]];
  const segmentation: Segmentation = { groups, unlabeledLock: false };
  const volume = segmentationVolume(
    {
      dims: [h.columns, h.rows, depth],
      spacing: [pixelSpacing[1] ?? 1, pixelSpacing[0] ?? 1, zSpacing],
      origin,
      direction,
      timeStepMs: 1,
      timeOriginMs: 0,
    },
    segmentation,
  );
  return {
    kind: 'segmentation',
    volume,
    segmentation,
    properties: { ...tagProperties([[h]]), name: basename(file).replace(/\.[^.]*$/, '') },
    files: [file],
    slices: depth,
  };
}

function segments(ds: DataSet): Label[] {
  return items(ds, 'x00620002').map((item, i) => {
    const value = us(item, 'x00620004') ?? i + 1;
    const meaning = str(nested(item, 'x00620010') ?? item, 'x00080104');
    // RecommendedDisplayCIELabValue is US, three binary values.
    const labElement = item.elements.x0062000d;
    const lab =
      labElement !== undefined && labElement.length >= 6
        ? [0, 1, 2].map((k) => item.uint16('x0062000d', k)!)
        : undefined;
    return {
      ...LABEL_DEFAULTS,
      value,
      name: raw(item, 'x00620005') ?? meaning ?? String(value),
      color: lab?.length === 3 ? labToRgb(lab as [number, number, number]) : LABEL_DEFAULTS.color,
      extra: {},
    };
  });
}

function items(ds: DataSet, tag: string): DataSet[] {
  const el: Element | undefined = ds.elements[tag];
  return (el?.items ?? []).map((i) => i.dataSet).filter((d): d is DataSet => d !== undefined);
}

function nested(ds: DataSet | undefined, tag: string): DataSet | undefined {
  return ds === undefined ? undefined : items(ds, tag)[0];
}

/** DICOM's scaled CIELab (0..65535) to sRGB 0..1 under D65, as dcmqi converts it. */
export function labToRgb(scaled: [number, number, number]): [number, number, number] {
  const L = (scaled[0] / 65535) * 100;
  const a = (scaled[1] / 65535) * 255 - 128;
  const b = (scaled[2] / 65535) * 255 - 128;
  const fy = (L + 16) / 116;
  const fx = fy + a / 500;
  const fz = fy - b / 200;
  const inv = (t: number): number => (t ** 3 > 0.008856 ? t ** 3 : (t - 16 / 116) / 7.787);
  const X = 0.950456 * inv(fx);
  const Y = 1 * inv(fy);
  const Z = 1.088754 * inv(fz);
  const lin = [
    3.2404542 * X - 1.5371385 * Y - 0.4985314 * Z,
    -0.969266 * X + 1.8760108 * Y + 0.041556 * Z,
    0.0556434 * X - 0.2040259 * Y + 1.0572252 * Z,
  ];
  const gamma = (c: number): number => {
    const v = c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055;
    return Math.min(1, Math.max(0, v));
  };
  return [gamma(lin[0]!), gamma(lin[1]!), gamma(lin[2]!)];
}
