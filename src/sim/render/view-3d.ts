import type { Vec3 } from '../volume.js';
import { cameraFrame, dot } from './camera-frame.js';
import { blendSample, prepareLayer, toIndex, type PreparedLayer } from './layer-sampler.js';
import { toRgba } from './pixels.js';
import type { RenderLayer, RgbaImage, View3D } from './types.js';

/** Where a slice plane shows no data it is drawn in this grey, so its extent stays visible. */
const PLANE_GREY = 0.22;
const SKY_TOP: Vec3 = [0.1, 0.12, 0.3];
const SKY_BOTTOM: Vec3 = [0, 0, 0];

/**
 * The 3D window: the orthogonal slice planes, textured with the layers, seen in perspective.
 * Each pixel casts a ray; the nearest plane hit inside the bounds wins, which gives correct
 * depth ordering without sorting polygons.
 */
export function renderView3D(view: View3D, layers: readonly RenderLayer[]): RgbaImage {
  const { width: W, height: H } = view;
  const rgb = new Float32Array(W * H * 3);
  for (let py = 0; py < H; py++) {
    const t = H > 1 ? py / (H - 1) : 0;
    for (let px = 0, o = py * W * 3; px < W; px++, o += 3) {
      rgb[o] = SKY_TOP[0] * (1 - t) + SKY_BOTTOM[0] * t;
      rgb[o + 1] = SKY_TOP[1] * (1 - t) + SKY_BOTTOM[1] * t;
      rgb[o + 2] = SKY_TOP[2] * (1 - t) + SKY_BOTTOM[2] * t;
    }
  }
  const bounds = view.bounds;
  if (!bounds || view.planes.length === 0) return toRgba(W, H, rgb);

  const prepared: PreparedLayer[] = layers.map(prepareLayer).filter((l) => l.opacity > 0);
  const f = cameraFrame(view.camera);
  const o = view.camera.position;
  const perPixel = (2 * Math.tan((((view.camera.perspective_angle ?? 30) * Math.PI) / 180) / 2)) / H;
  const span = Math.max(bounds.max[0] - bounds.min[0], bounds.max[1] - bounds.min[1], bounds.max[2] - bounds.min[2]);
  const eps = span * 1e-9;
  const planes = view.planes.map((p) => ({ ...p, q: dot(p.planePoint, p.planeNormal) }));
  const hit: Vec3 = [0, 0, 0];

  for (let py = 0; py < H; py++) {
    const yn = (H / 2 - py - 0.5) * perPixel;
    for (let px = 0; px < W; px++) {
      const xn = (px + 0.5 - W / 2) * perPixel;
      const d: Vec3 = [f.dop[0] + f.right[0] * xn + f.up[0] * yn, f.dop[1] + f.right[1] * xn + f.up[1] * yn, f.dop[2] + f.right[2] * xn + f.up[2] * yn];
      let best = Infinity;
      let bestPlane = -1;
      for (let k = 0; k < planes.length; k++) {
        const p = planes[k]!;
        const denom = dot(d, p.planeNormal);
        if (Math.abs(denom) < 1e-12) continue;
        const t = (p.q - dot(o, p.planeNormal)) / denom;
        if (t <= 0 || t >= best) continue;
        const x = o[0] + d[0] * t;
        const y = o[1] + d[1] * t;
        const z = o[2] + d[2] * t;
        if (x < bounds.min[0] - eps || x > bounds.max[0] + eps || y < bounds.min[1] - eps || y > bounds.max[1] + eps || z < bounds.min[2] - eps || z > bounds.max[2] + eps) continue;
        best = t;
        bestPlane = k;
      }
      if (bestPlane < 0) continue;
      hit[0] = o[0] + d[0] * best;
      hit[1] = o[1] + d[1] * best;
      hit[2] = o[2] + d[2] * best;
      const at = (py * W + px) * 3;
      const plane = planes[bestPlane]!;
      // The plane's outline, about one pixel wide at this depth, in the plane's colour.
      const edge = best * perPixel * Math.hypot(d[0], d[1], d[2]);
      if (onEdge(hit, plane.planeNormal, bounds, edge)) {
        rgb.set(plane.color, at);
        continue;
      }
      rgb[at] = PLANE_GREY;
      rgb[at + 1] = PLANE_GREY;
      rgb[at + 2] = PLANE_GREY;
      for (const l of prepared) {
        const idx = toIndex(l, hit);
        blendSample(l, idx[0], idx[1], idx[2], rgb, at);
      }
    }
  }
  return toRgba(W, H, rgb);
}

/** Whether a point of a plane lies within `edge` of the bounds along an in-plane axis. */
function onEdge(p: Vec3, normal: Vec3, bounds: { min: Vec3; max: Vec3 }, edge: number): boolean {
  for (let a = 0; a < 3; a++) {
    if (Math.abs(normal[a]!) > 0.9) continue;
    if (p[a]! - bounds.min[a]! < edge || bounds.max[a]! - p[a]! < edge) return true;
  }
  return false;
}
