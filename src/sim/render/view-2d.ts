import type { Vec3 } from '../volume.js';
import { add, cameraFrame, dot, scale, sub } from './camera-frame.js';
import { blendSpan, prepareLayer, toIndex, toIndexDelta } from './layer-sampler.js';
import type { RenderLayer, Rgb, RgbaImage, View2D } from './types.js';
import { fillRgb, toRgba } from './pixels.js';

/** parallel_scale of a 2D camera that has none (a view of 200 mm), so a bad camera still draws. */
const FALLBACK_PARALLEL_SCALE = 100;

/**
 * A 2D window: an orthographic slice through the layers. Screen pixel (px, py) maps to the
 * world point focal + right·(px + ½ − W/2)·s + up·(H/2 − py − ½)·s with s = 2·parallel_scale/H,
 * projected along the plane normal onto the slice plane. That map is affine, so each layer
 * is walked with a start index and per-pixel increments.
 */
export function renderView2D(view: View2D, layers: readonly RenderLayer[]): RgbaImage {
  const { width: W, height: H } = view;
  const rgb = new Float32Array(W * H * 3);
  fillRgb(rgb, view.background);

  const f = cameraFrame(view.camera);
  const ps = view.camera.parallel_scale;
  const s = (2 * (ps !== null && ps > 0 ? ps : FALLBACK_PARALLEL_SCALE)) / H;
  const n = view.planeNormal;
  const project = (d: Vec3): Vec3 => sub(d, scale(n, dot(d, n)));
  // World point of pixel (0, 0), and the world steps of one pixel right and one pixel down.
  const corner = add(add(view.camera.focal_point, scale(f.right, (0.5 - W / 2) * s)), scale(f.up, (H / 2 - 0.5) * s));
  const p0 = sub(corner, scale(n, dot(sub(corner, view.planePoint), n)));
  const dx = project(scale(f.right, s));
  const dy = project(scale(f.up, -s));

  for (const layer of layers) {
    const l = prepareLayer(layer);
    if (l.opacity <= 0) continue;
    const i0 = toIndex(l, p0);
    const ix = toIndexDelta(l, dx);
    const iy = toIndexDelta(l, dy);
    for (let py = 0; py < H; py++) {
      blendSpan(l, i0[0] + iy[0] * py, i0[1] + iy[1] * py, i0[2] + iy[2] * py, ix[0], ix[1], ix[2], rgb, py * W * 3, W);
    }
  }

  for (const line of view.crosshair) drawPlaneLine(rgb, W, H, p0, dx, dy, line);
  return toRgba(W, H, rgb);
}

/**
 * Crosshair: the pixels whose world point lies within half a pixel of another window's plane
 * (signed distance in (−½, ½] of a pixel step), drawn last. The distance is affine in (px, py);
 * for the usual lines, parallel to a screen axis, whole rows or columns are decided at once.
 */
function drawPlaneLine(rgb: Float32Array, W: number, H: number, p0: Vec3, dx: Vec3, dy: Vec3, line: { planeNormal: Vec3; planePoint: Vec3; color: Rgb }): void {
  const m = line.planeNormal;
  const d0 = dot(sub(p0, line.planePoint), m);
  const ddx = dot(dx, m);
  const ddy = dot(dy, m);
  const half = Math.max(Math.abs(ddx), Math.abs(ddy)) / 2;
  if (!(half >= 1e-12)) return;
  const [r, g, b] = line.color;
  const paint = (o: number): void => {
    rgb[o] = r;
    rgb[o + 1] = g;
    rgb[o + 2] = b;
  };
  if (ddx === 0) {
    for (let py = 0; py < H; py++) {
      const d = d0 + ddy * py;
      if (d > -half && d <= half) for (let px = 0, o = py * W * 3; px < W; px++, o += 3) paint(o);
    }
    return;
  }
  if (ddy === 0) {
    const columns: number[] = [];
    for (let px = 0, d = d0; px < W; px++, d += ddx) if (d > -half && d <= half) columns.push(px);
    for (let py = 0; py < H; py++) for (const px of columns) paint((py * W + px) * 3);
    return;
  }
  for (let py = 0; py < H; py++) {
    let d = d0 + ddy * py;
    for (let px = 0, o = py * W * 3; px < W; px++, o += 3) {
      if (d > -half && d <= half) paint(o);
      d += ddx;
    }
  }
}
