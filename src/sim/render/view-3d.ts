import type { Vec3 } from '../../volume/volume.js';
import { cameraFrame, dot, sub, type CameraFrame } from './camera-frame.js';
import { blendPoint, prepareLayers, type PreparedLayer } from './layer-sampler.js';
import { packRgb } from '../../image/pixels.js';
import type { RenderLayer, RgbaImage, View3D } from './types.js';

/** Where a slice plane shows no data it is drawn in this grey, so its extent stays visible. */
const PLANE_GREY = 0.22;
/** MITK's 3D default background: a vertical gradient, dark blue at the top to black. */
const SKY_TOP: Vec3 = [0.1, 0.12, 0.3];
const SKY_BOTTOM: Vec3 = [0, 0, 0];
/** Vertical field of view of a 3D camera that has none (VTK's default view angle). */
const FALLBACK_ANGLE = 30;

interface Bounds {
  min: Vec3;
  max: Vec3;
}

/**
 * The 3D window: the orthogonal slice planes, textured with the layers, seen in perspective.
 * Each pixel casts a ray; the nearest plane hit inside the bounds wins, which gives correct
 * depth ordering without sorting polygons.
 */
export function renderView3D(view: View3D, layers: readonly RenderLayer[], data: Uint8Array): RgbaImage {
  const { width: W, height: H } = view;
  const rgb = scratch(W * H * 3);
  fillSky(rgb, W, H);
  const bounds = view.bounds;
  if (!bounds || view.planes.length === 0) return packed(W, H, rgb, data);

  const prepared: PreparedLayer[] = layers.flatMap(prepareLayers).filter((l) => l.opacity > 0);
  const f = cameraFrame(view.camera);
  const angle = view.camera.perspective_angle;
  const perPixel =
    (2 * Math.tan(((angle !== null && angle > 0 && angle < 180 ? angle : FALLBACK_ANGLE) * Math.PI) / 180 / 2)) / H;
  const span = Math.max(bounds.max[0] - bounds.min[0], bounds.max[1] - bounds.min[1], bounds.max[2] - bounds.min[2]);
  const eps = span * 1e-9;
  const eye = view.camera.position;
  // Everything a ray needs, as numbers in one typed array (see RAY).
  const ray = new Float64Array(RAY.size);
  ray.set(eye, RAY.eye);
  ray.set(f.dop, RAY.dop);
  ray.set(f.right, RAY.right);
  ray.set(f.up, RAY.up);
  for (let a = 0; a < 3; a++) {
    ray[RAY.lo + a] = bounds.min[a]! - eps;
    ray[RAY.hi + a] = bounds.max[a]! + eps;
  }
  ray[RAY.perPixel] = perPixel;
  // Per plane, flat for the inner loop: its normal and the plane's offset from the camera along it.
  const planes = view.planes;
  const geometry = new Float64Array(planes.length * 4);
  planes.forEach((p, k) => {
    geometry.set(p.planeNormal, k * 4);
    geometry[k * 4 + 3] = dot(p.planePoint, p.planeNormal) - dot(eye, p.planeNormal);
  });
  const hit = new Float64Array(3);
  const box = screenBox(f, eye, bounds, perPixel, W, H);
  const scene: PlaneScene = { planes, geometry, bounds, layers: prepared, ray, hit };
  for (let py = box.y0; py < box.y1; py++) castRow(scene, rgb, W, H, py, box.x0, box.x1);
  return packed(W, H, rgb, data);
}

/** Offsets into a ray's numbers: the camera, its frame, the bounds widened by a hair, pixel size. */
const RAY = { eye: 0, dop: 3, right: 6, up: 9, lo: 12, hi: 15, perPixel: 18, size: 19 } as const;

interface PlaneScene {
  planes: View3D['planes'];
  /** Per plane: normal (3) and offset from the camera along it. */
  geometry: Float64Array;
  bounds: Bounds;
  layers: PreparedLayer[];
  ray: Float64Array;
  /** Where the current ray meets its plane, for the samplers. */
  hit: Float64Array;
}

/*
 * The picture is drawn by small functions, one row at a time. The engine optimises a long loop
 * while it runs and throws that code away at the first statement after the loop it has not yet
 * seen run; in one large function that happened on every grab of every workbench thread, and
 * compiling the function again cost more than drawing with it.
 */

/** MITK's 3D background gradient over the whole window. */
function fillSky(rgb: Float32Array, W: number, H: number): void {
  for (let py = 0; py < H; py++) {
    const t = H > 1 ? py / (H - 1) : 0;
    const r = SKY_TOP[0] * (1 - t) + SKY_BOTTOM[0] * t;
    const g = SKY_TOP[1] * (1 - t) + SKY_BOTTOM[1] * t;
    const b = SKY_TOP[2] * (1 - t) + SKY_BOTTOM[2] * t;
    for (let px = 0, o = py * W * 3; px < W; px++, o += 3) {
      rgb[o] = r;
      rgb[o + 1] = g;
      rgb[o + 2] = b;
    }
  }
}

/** Casts the rays of pixels x0..x1 of row py; a ray that meets a plane inside the bounds draws it. */
function castRow(s: PlaneScene, rgb: Float32Array, W: number, H: number, py: number, x0: number, x1: number): void {
  const { ray, geometry, hit, planes, layers } = s;
  const count = planes.length;
  const perPixel = ray[RAY.perPixel]!;
  const o0 = ray[RAY.eye]!;
  const o1 = ray[RAY.eye + 1]!;
  const o2 = ray[RAY.eye + 2]!;
  const lo0 = ray[RAY.lo]!;
  const lo1 = ray[RAY.lo + 1]!;
  const lo2 = ray[RAY.lo + 2]!;
  const hi0 = ray[RAY.hi]!;
  const hi1 = ray[RAY.hi + 1]!;
  const hi2 = ray[RAY.hi + 2]!;
  const yn = (H / 2 - py - 0.5) * perPixel;
  const f0 = ray[RAY.dop]!;
  const f1 = ray[RAY.dop + 1]!;
  const f2 = ray[RAY.dop + 2]!;
  const r0 = ray[RAY.right]!;
  const r1 = ray[RAY.right + 1]!;
  const r2 = ray[RAY.right + 2]!;
  const u0 = ray[RAY.up]!;
  const u1 = ray[RAY.up + 1]!;
  const u2 = ray[RAY.up + 2]!;
  for (let px = x0; px < x1; px++) {
    const xn = (px + 0.5 - W / 2) * perPixel;
    const d0 = f0 + r0 * xn + u0 * yn;
    const d1 = f1 + r1 * xn + u1 * yn;
    const d2 = f2 + r2 * xn + u2 * yn;
    let best = Infinity;
    let bestPlane = -1;
    for (let k = 0, g = 0; k < count; k++, g += 4) {
      const denom = d0 * geometry[g]! + d1 * geometry[g + 1]! + d2 * geometry[g + 2]!;
      if (denom < 1e-12 && denom > -1e-12) continue;
      const t = geometry[g + 3]! / denom;
      if (t <= 0 || t >= best) continue;
      const x = o0 + d0 * t;
      const y = o1 + d1 * t;
      const z = o2 + d2 * t;
      if (x < lo0 || x > hi0 || y < lo1 || y > hi1 || z < lo2 || z > hi2) continue;
      best = t;
      bestPlane = k;
    }
    if (bestPlane < 0) continue;
    // The hit point goes to the samplers in a typed array: numbers with a fraction passed to
    // a call are boxed, one allocation each, and this runs for every pixel that shows a plane.
    hit[0] = o0 + d0 * best;
    hit[1] = o1 + d1 * best;
    hit[2] = o2 + d2 * best;
    const at = (py * W + px) * 3;
    const plane = planes[bestPlane]!;
    // The plane's outline, about one pixel wide at this depth, in the plane's colour.
    const edge = best * perPixel * Math.sqrt(d0 * d0 + d1 * d1 + d2 * d2);
    if (onEdge(hit, plane.planeNormal, s.bounds, edge)) {
      rgb[at] = plane.color[0];
      rgb[at + 1] = plane.color[1];
      rgb[at + 2] = plane.color[2];
      continue;
    }
    rgb[at] = PLANE_GREY;
    rgb[at + 1] = PLANE_GREY;
    rgb[at + 2] = PLANE_GREY;
    for (let k = 0; k < layers.length; k++) blendPoint(layers[k]!, hit, rgb, at);
  }
}

function packed(W: number, H: number, rgb: Float32Array, data: Uint8Array): RgbaImage {
  packRgb(rgb, data, 0);
  return { width: W, height: H, data };
}

let scratchRgb = new Float32Array(0);

/**
 * The float picture of the window, reused from one grab to the next (12 bytes a pixel, 3 MB for
 * a 512x512 window). Every pixel is written before it is read.
 */
function scratch(length: number): Float32Array {
  if (scratchRgb.length !== length) scratchRgb = new Float32Array(length);
  return scratchRgb;
}

/** Whether a point of a plane lies within `edge` of the bounds along an in-plane axis. */
function onEdge(p: Float64Array, normal: Vec3, bounds: Bounds, edge: number): boolean {
  const p0 = p[0]!;
  const p1 = p[1]!;
  const p2 = p[2]!;
  if (Math.abs(normal[0]) <= 0.9 && (p0 - bounds.min[0] < edge || bounds.max[0] - p0 < edge)) return true;
  if (Math.abs(normal[1]) <= 0.9 && (p1 - bounds.min[1] < edge || bounds.max[1] - p1 < edge)) return true;
  return Math.abs(normal[2]) <= 0.9 && (p2 - bounds.min[2] < edge || bounds.max[2] - p2 < edge);
}

/**
 * The pixel rectangle that can show the box: the screen extent of its eight corners, widened by
 * two pixels. A ray outside it cannot meet the box (the box's image is the hull of its corners'),
 * so those pixels keep the background without casting. With a corner at or behind the camera
 * the projection is unbounded and the whole window is cast.
 */
function screenBox(
  f: CameraFrame,
  eye: Vec3,
  bounds: Bounds,
  perPixel: number,
  W: number,
  H: number,
): { x0: number; y0: number; x1: number; y1: number } {
  const all = { x0: 0, y0: 0, x1: W, y1: H };
  let xmin = Infinity;
  let xmax = -Infinity;
  let ymin = Infinity;
  let ymax = -Infinity;
  for (let c = 0; c < 8; c++) {
    const corner: Vec3 = [
      c & 1 ? bounds.max[0] : bounds.min[0],
      c & 2 ? bounds.max[1] : bounds.min[1],
      c & 4 ? bounds.max[2] : bounds.min[2],
    ];
    const v = sub(corner, eye);
    const depth = dot(v, f.dop);
    if (!(depth > 1e-9)) return all;
    const sx = dot(v, f.right) / depth / perPixel + W / 2 - 0.5;
    const sy = H / 2 - 0.5 - dot(v, f.up) / depth / perPixel;
    xmin = Math.min(xmin, sx);
    xmax = Math.max(xmax, sx);
    ymin = Math.min(ymin, sy);
    ymax = Math.max(ymax, sy);
  }
  const clamp = (v: number, hi: number): number => Math.min(Math.max(v, 0), hi);
  return {
    x0: clamp(Math.floor(xmin) - 2, W),
    x1: clamp(Math.ceil(xmax) + 3, W),
    y0: clamp(Math.floor(ymin) - 2, H),
    y1: clamp(Math.ceil(ymax) + 3, H),
  };
}
