import type { Vec3 } from '../../volume/volume.js';
import { add, cameraFrame, dot, scale, sub } from './camera-frame.js';
import { blendFiltered } from './filtered-span.js';
import { blendSpan, prepareLayers, toIndex, toIndexDelta, type PreparedLayer } from './layer-sampler.js';
import type { RenderLayer, Rgb, RgbaImage, View2D } from './types.js';
import { fillRgb, packRgb } from '../../image/pixels.js';

/** parallel_scale of a 2D camera that has none (a view of 200 mm), so a bad camera still draws. */
const FALLBACK_PARALLEL_SCALE = 100;

/**
 * A 2D window: an orthographic slice through the layers. Screen pixel (px, py) maps to the
 * world point focal + right·(px + ½ − W/2)·s + up·(H/2 − py − ½)·s with s = 2·parallel_scale/H,
 * projected along the plane normal onto the slice plane. That map is affine, so each layer
 * is walked with a start index and per-pixel increments. The picture is composed one row at a
 * time in a small float buffer that stays in the processor's cache: background, layers bottom
 * to top, crosshair lines, then packed into the RGBA output.
 */
export function renderView2D(view: View2D, layers: readonly RenderLayer[], data: Uint8Array): RgbaImage {
  const { width: W, height: H } = view;
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

  const walks: Walk[] = layers
    .flatMap(prepareLayers)
    .filter((l) => l.opacity > 0)
    .map((l) => {
      const ix = toIndexDelta(l, dx);
      const iy = toIndexDelta(l, dy);
      return { l, i0: toIndex(l, p0), ix, iy, sliceAxis: sliceAxisOf(ix, iy) };
    });
  const lines = view.crosshair.map((line) => planeLine(W, p0, dx, dy, line));
  const row = new Float32Array(W * 3);
  for (let py = 0; py < H; py++) composeRow(walks, lines, view.background, row, data, W, py);
  return { width: W, height: H, data };
}

interface Walk {
  l: PreparedLayer;
  /** Continuous index of pixel (0, 0), and its steps for one pixel right and one down. */
  i0: Vec3;
  ix: Vec3;
  iy: Vec3;
  /** The index axis the view does not move along, when it is the only one; else -1. */
  sliceAxis: number;
}

/** The index axis that stays fixed across the window: the slice axis of an axis-aligned view. */
function sliceAxisOf(ix: Vec3, iy: Vec3): number {
  const fixed = [0, 1, 2].filter((k) => Math.abs(ix[k]!) < 1e-9 && Math.abs(iy[k]!) < 1e-9);
  return fixed.length === 1 ? fixed[0]! : -1;
}

/**
 * Row py: background, layers, crosshair, packed into the output. A function of its own, so the
 * engine optimises it once for all rows; optimised as a loop inside the window's function, the
 * code was thrown away after every grab (see view-3d.ts).
 */
function composeRow(
  walks: readonly Walk[],
  lines: ReadonlyArray<(row: Float32Array, py: number) => void>,
  background: Rgb,
  row: Float32Array,
  data: Uint8Array,
  W: number,
  py: number,
): void {
  fillRgb(row, background);
  for (let k = 0; k < walks.length; k++) {
    const { l, i0, ix, iy, sliceAxis } = walks[k]!;
    if (sliceAxis >= 0 && l.labels === null && (l.texture || l.resliceLinear)) {
      const f: Vec3 = [i0[0] + iy[0] * py, i0[1] + iy[1] * py, i0[2] + iy[2] * py];
      blendFiltered(l, f, ix, sliceAxis, row, 0, W);
      continue;
    }
    blendSpan(l, i0[0] + iy[0] * py, i0[1] + iy[1] * py, i0[2] + iy[2] * py, ix[0], ix[1], ix[2], row, 0, W);
  }
  for (let k = 0; k < lines.length; k++) lines[k]!(row, py);
  packRgb(row, data, py * W);
}

/**
 * Crosshair: the pixels whose world point lies within half a pixel of another window's plane
 * (signed distance in (−½, ½] of a pixel step), drawn over the layers. The distance is affine in
 * (px, py); for the usual lines, parallel to a screen axis, a whole row or the set of columns is
 * decided at once. Returns the painter of one row.
 */
function planeLine(
  W: number,
  p0: Vec3,
  dx: Vec3,
  dy: Vec3,
  line: { planeNormal: Vec3; planePoint: Vec3; color: Rgb },
): (row: Float32Array, py: number) => void {
  const m = line.planeNormal;
  const d0 = dot(sub(p0, line.planePoint), m);
  const ddx = dot(dx, m);
  const ddy = dot(dy, m);
  const half = Math.max(Math.abs(ddx), Math.abs(ddy)) / 2;
  const [r, g, b] = line.color;
  const paint = (row: Float32Array, px: number): void => {
    row[px * 3] = r;
    row[px * 3 + 1] = g;
    row[px * 3 + 2] = b;
  };
  if (!(half >= 1e-12)) return () => {};
  if (ddx === 0) {
    return (row, py) => {
      const d = d0 + ddy * py;
      if (d > -half && d <= half) for (let px = 0; px < W; px++) paint(row, px);
    };
  }
  if (ddy === 0) {
    const columns: number[] = [];
    for (let px = 0, d = d0; px < W; px++, d += ddx) if (d > -half && d <= half) columns.push(px);
    return (row) => {
      for (const px of columns) paint(row, px);
    };
  }
  return (row, py) => {
    let d = d0 + ddy * py;
    for (let px = 0; px < W; px++) {
      if (d > -half && d <= half) paint(row, px);
      d += ddx;
    }
  };
}
