import type { Vec3 } from '../volume.js';
import { add, cameraFrame, dot, scale, sub } from './camera-frame.js';
import { blendSample, prepareLayer, toIndex, toIndexDelta } from './layer-sampler.js';
import type { RenderLayer, RgbaImage, View2D } from './types.js';
import { toRgba } from './pixels.js';

/**
 * A 2D window: an orthographic slice through the layers. Screen pixel (px, py) maps to the
 * world point focal + right·(px + ½ − W/2)·s + up·(H/2 − py − ½)·s with s = 2·parallel_scale/H,
 * projected along the plane normal onto the slice plane. That map is affine, so each layer
 * is walked with a start index and per-pixel increments.
 */
export function renderView2D(view: View2D, layers: readonly RenderLayer[]): RgbaImage {
  const { width: W, height: H } = view;
  const rgb = new Float32Array(W * H * 3);
  for (let o = 0; o < rgb.length; o += 3) rgb.set(view.background, o);

  const f = cameraFrame(view.camera);
  const s = (2 * (view.camera.parallel_scale ?? 100)) / H;
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
      let fi = i0[0] + iy[0] * py;
      let fj = i0[1] + iy[1] * py;
      let fk = i0[2] + iy[2] * py;
      let o = py * W * 3;
      for (let px = 0; px < W; px++) {
        blendSample(l, fi, fj, fk, rgb, o);
        fi += ix[0];
        fj += ix[1];
        fk += ix[2];
        o += 3;
      }
    }
  }

  // Crosshair: pixels whose world point lies within half a pixel of another window's plane.
  for (const line of view.crosshair) {
    const m = line.planeNormal;
    const d0 = dot(sub(p0, line.planePoint), m);
    const ddx = dot(dx, m);
    const ddy = dot(dy, m);
    const half = Math.max(Math.abs(ddx), Math.abs(ddy)) / 2;
    if (half < 1e-12) continue;
    for (let py = 0; py < H; py++) {
      let d = d0 + ddy * py;
      let o = py * W * 3;
      for (let px = 0; px < W; px++) {
        if (d > -half && d <= half) rgb.set(line.color, o);
        d += ddx;
        o += 3;
      }
    }
  }
  return toRgba(W, H, rgb);
}
