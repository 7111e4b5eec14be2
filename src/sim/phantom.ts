import { segmentationVolume, IDENTITY, type Mat3, type Vec3, type Volume } from '../volume/volume.js';
import { mulberry32 } from './random.js';
import { type Label } from '../volume/segmentation.js';

export { mulberry32 };

/**
 * Synthetic studies for demos and tests: a CT-like trunk with a tumour, its label image, an
 * MR-like volume on another (mirrored) grid and a 4D perfusion series. The anatomy is defined
 * once in world millimetres (LPS) and sampled on each grid, so all images of a study line up.
 * It is clearly asymmetric: the trunk sits off the image centre, the spine is posterior, the
 * organ on the patient's right and a dense marker anterior-left near the top, so a flipped or
 * swapped axis shows at a glance.
 */

export interface Tumour {
  /** Centre in world millimetres (LPS). */
  centre: Vec3;
  radiusMm: number;
}

export interface StudyParams {
  /** Seed of the voxel noise. */
  noiseSeed: number;
  /** Trunk: elliptic cylinder along z, centre (x, y) and semi-axes in mm. */
  trunk: { centre: [number, number]; radii: [number, number] };
  tumour: Tumour;
  /** CT value of soft tissue and of the tumour (HU-like). */
  bodyHu: number;
  tumourHu: number;
  /** Peak enhancement of the tumour in the perfusion series. */
  perfusionPeak: number;
}

/** The nominal study: the single study of `wbplay demo-data` and the phantom of the rendering goldens. */
export function nominalStudy(seed = 1): StudyParams {
  return {
    noiseSeed: seed,
    trunk: { centre: [44, 50], radii: [36, 28] },
    tumour: { centre: [56, 52, 36], radiusMm: 7 },
    bodyHu: 40,
    tumourHu: 120,
    perfusionPeak: 300,
  };
}

/** Study `index` (0-based) of a cohort: shape, tumour and intensities drawn from the seed and index. */
export function cohortStudy(seed: number, index: number): StudyParams {
  const random = mulberry32((Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0);
  const uniform = (lo: number, hi: number, step = 0.1): number => Math.round((lo + (hi - lo) * random()) / step) * step;
  const fix = (n: number): number => Number(n.toFixed(1));
  const centre: [number, number] = [fix(44 + uniform(-3, 3)), fix(50 + uniform(-3, 3))];
  const radii: [number, number] = [fix(uniform(30, 38)), fix(uniform(22, 30))];
  const radius = fix(uniform(4, 9));
  return {
    noiseSeed: Math.floor(random() * 2 ** 32),
    trunk: { centre, radii },
    tumour: {
      centre: [
        fix(centre[0] + uniform(6, radii[0] * 0.5)),
        fix(centre[1] + uniform(-radii[1] * 0.4, radii[1] * 0.2)),
        fix(uniform(20, 60)),
      ],
      radiusMm: radius,
    },
    bodyHu: Math.round(uniform(32, 48)),
    tumourHu: Math.round(uniform(95, 155)),
    perfusionPeak: Math.round(uniform(200, 400)),
  };
}

export const TISSUES = ['air', 'body', 'spine', 'organ', 'tumour', 'marker'] as const;
export type Tissue = (typeof TISSUES)[number];
const AIR = 0;
const BODY = 1;
const SPINE = 2;
const ORGAN = 3;
const TUMOUR = 4;
const MARKER = 5;

/** Squared normalised distance to an axis-aligned ellipsoid's centre: <= 1 inside. */
interface Ellipsoid {
  c: Vec3;
  inv: Vec3;
}

function ellipsoid(c: Vec3, radii: Vec3): Ellipsoid {
  return { c, inv: [1 / radii[0], 1 / radii[1], 1 / radii[2]] };
}

function inside(e: Ellipsoid, x: number, y: number, z: number): boolean {
  const a = (x - e.c[0]) * e.inv[0];
  const b = (y - e.c[1]) * e.inv[1];
  const c = (z - e.c[2]) * e.inv[2];
  return a * a + b * b + c * c <= 1;
}

/** The study's anatomy with its shapes precomputed, so sampling a grid is a few multiplications per voxel. */
class Anatomy {
  private readonly marker: Ellipsoid;
  private readonly tumour: Ellipsoid;
  private readonly organ: Ellipsoid;
  private readonly trunk: Ellipsoid;
  private readonly spine: Ellipsoid;

  constructor(p: StudyParams) {
    const [cx, cy] = p.trunk.centre;
    const [rx, ry] = p.trunk.radii;
    const r = p.tumour.radiusMm;
    this.marker = ellipsoid([cx + 0.6 * rx, cy - 0.75 * ry, 64], [4, 4, 4]);
    this.tumour = ellipsoid(p.tumour.centre, [r, r, r]);
    this.organ = ellipsoid([cx - 0.45 * rx, cy - 0.2 * ry, 40], [0.35 * rx, 0.45 * ry, 18]);
    // Cylinders along z: an infinite z radius.
    this.trunk = ellipsoid([cx, cy, 0], [rx, ry, Infinity]);
    this.spine = ellipsoid([cx, cy + ry - 9, 0], [5, 5, Infinity]);
  }

  at(x: number, y: number, z: number): number {
    if (inside(this.marker, x, y, z)) return MARKER;
    if (z < 2 || z > 76 || !inside(this.trunk, x, y, z)) return AIR;
    if (inside(this.tumour, x, y, z)) return TUMOUR;
    if (inside(this.spine, x, y, z)) return SPINE;
    if (inside(this.organ, x, y, z)) return ORGAN;
    return BODY;
  }
}

/** What lies at a world point (LPS mm) of a study. */
export function tissueAt(p: StudyParams, x: number, y: number, z: number): Tissue {
  return TISSUES[new Anatomy(p).at(x, y, z)]!;
}

interface GridSpec {
  dims: Vec3;
  spacing: Vec3;
  origin: Vec3;
  direction: Mat3;
}

/** The CT grid of the NB06 phantom: 96x96x32 voxels of 1x1x2.5 mm at the origin. */
export const CT_GRID: GridSpec = { dims: [96, 96, 32], spacing: [1, 1, 2.5], origin: [0, 0, 0], direction: IDENTITY };
/** MR grid: 80x80x40 voxels of 1.2x1.2x2 mm with the x axis mirrored (index x runs to the patient's right). */
export const MR_GRID: GridSpec = {
  dims: [80, 80, 40],
  spacing: [1.2, 1.2, 2],
  origin: [95, 0, 0],
  direction: [-1, 0, 0, 0, 1, 0, 0, 0, 1],
};
export const PERFUSION_GRID: GridSpec = {
  dims: [48, 48, 16],
  spacing: [2, 2, 5],
  origin: [0, 0, 0],
  direction: IDENTITY,
};
export const PERFUSION_STEPS = 10;
export const PERFUSION_STEP_MS = 500;

/** Tissue code (index into TISSUES) at each voxel centre of a grid, x fastest. */
function tissueGrid(grid: GridSpec, p: StudyParams): Uint8Array {
  const [nx, ny, nz] = grid.dims;
  const d = grid.direction;
  const [sx, sy, sz] = grid.spacing;
  const anatomy = new Anatomy(p);
  const out = new Uint8Array(nx * ny * nz);
  let at = 0;
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      const b = j * sy;
      const c = k * sz;
      const x0 = grid.origin[0] + d[1] * b + d[2] * c;
      const y0 = grid.origin[1] + d[4] * b + d[5] * c;
      const z0 = grid.origin[2] + d[7] * b + d[8] * c;
      for (let i = 0; i < nx; i++) {
        const a = i * sx;
        out[at++] = anatomy.at(x0 + d[0] * a, y0 + d[3] * a, z0 + d[6] * a);
      }
    }
  }
  return out;
}

/** Maps tissue codes to values; `noise` (amplitude per tissue) is uniform and seeded. */
function paint(tissues: Uint8Array, values: readonly number[], noise: readonly number[], seed: number): Float32Array {
  const random = mulberry32(seed >>> 0);
  const out = new Float32Array(tissues.length);
  for (let i = 0; i < tissues.length; i++) {
    const t = tissues[i]!;
    const amplitude = noise[t]!;
    out[i] = amplitude === 0 ? values[t]! : Math.round(values[t]! + amplitude * (random() - 0.5));
  }
  return out;
}

function volumeOf(grid: GridSpec, frames: Float32Array[], componentType: string, timeStepMs = 1): Volume {
  let min = Infinity;
  let max = -Infinity;
  for (const frame of frames) {
    for (const v of frame) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return { ...grid, dims: [...grid.dims], frames, timeStepMs, timeOriginMs: 0, componentType, range: [min, max] };
}

/** Tissue codes on the CT grid, shared by the CT and its label image. */
export function ctTissues(p: StudyParams): Uint8Array {
  return tissueGrid(CT_GRID, p);
}

export function ctPhantom(p: StudyParams, tissues = ctTissues(p)): Volume {
  const hu = [-1000, p.bodyHu, 700, p.bodyHu + 20, p.tumourHu, 1000];
  return volumeOf(CT_GRID, [paint(tissues, hu, [0, 12, 12, 12, 12, 12], p.noiseSeed)], 'int16');
}

/**
 * The study's labels. Fully opaque, so a node's opacity alone sets how strongly they show; the
 * tumour in the orange-red the example playbooks were written for.
 */
export const PHANTOM_LABELS: readonly Label[] = [
  { value: 1, name: 'tumour', color: [1, 0.3, 0.2], opacity: 1, visible: true, locked: true, extra: {} },
  { value: 2, name: 'organ', color: [0.2, 1, 0.2], opacity: 1, visible: true, locked: true, extra: {} },
];

/** A MITK segmentation on the CT grid, one label group: 1 = tumour, 2 = organ. */
export function labelPhantom(p: StudyParams, tissues = ctTissues(p)): Volume {
  const frame = paint(tissues, [0, 0, 0, 2, 1, 0], [0, 0, 0, 0, 0, 0], 0);
  const labels = PHANTOM_LABELS.map((l) => ({ ...l, color: [...l.color] as Label['color'], extra: {} }));
  const grid = { ...CT_GRID, dims: [...CT_GRID.dims] as Vec3, timeStepMs: 1, timeOriginMs: 0 };
  return segmentationVolume(grid, {
    groups: [{ name: 'phantom', labels, extra: {}, frames: [frame] }],
    unlabeledLock: false,
  });
}

export function mrPhantom(p: StudyParams): Volume {
  const scale = p.bodyHu / 40;
  const level = [0, 600 * scale, 150, 450 * scale, 1150, 900];
  return volumeOf(MR_GRID, [paint(tissueGrid(MR_GRID, p), level, [0, 30, 30, 30, 30, 30], p.noiseSeed + 1)], 'int16');
}

/** Gamma-variate bolus curve, 1 at its peak (1.5 s after the first step). */
function bolus(seconds: number, delay = 0): number {
  const t = (seconds - delay) / 1.5;
  return t <= 0 ? 0 : t ** 3 * Math.exp(3 * (1 - t));
}

/** 4D series: the tumour's intensity rises and falls over 10 steps of 500 ms; the organ enhances less and later. */
export function perfusionPhantom(p: StudyParams): Volume {
  const tissues = tissueGrid(PERFUSION_GRID, p);
  const frames: Float32Array[] = [];
  for (let s = 0; s < PERFUSION_STEPS; s++) {
    const seconds = (s * PERFUSION_STEP_MS) / 1000;
    const levels = [0, 100, 60, 100 + 80 * bolus(seconds, 0.5), 100 + p.perfusionPeak * bolus(seconds), 40];
    frames.push(paint(tissues, levels, [0, 6, 6, 6, 6, 6], p.noiseSeed + 3 + s));
  }
  return volumeOf(PERFUSION_GRID, frames, 'int16', PERFUSION_STEP_MS);
}
