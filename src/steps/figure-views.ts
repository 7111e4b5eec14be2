import type { Annotation } from '../figure/annotation-kinds.js';
import type { Corner } from '../figure/annotation-kinds.js';
import { insetBox, placeAnnotation, type Placing } from '../figure/annotations.js';
import { boundsOf, chooseCorner, overlaps, placementNotice, within, type Occupied } from '../figure/placement.js';
import type { Mark } from '../figure/marks.js';
import { projectPoint, zoomedCamera, type PanelView, type Slice } from '../figure/projection.js';
import type { Rect } from '../image/rgba.js';
import type { Camera, CameraPatch, ViewDirection } from '../api/wire.js';
import { annotationName } from './figure-annotations.js';
import type { StepRunContext } from './run-context.js';
import type { WindowAddress } from './window-address.js';
import { capture, windowHandle } from './window-handle.js';

/* What a figure asks the workbench to place a panel's annotations: its window's camera, slice and shape, and its insets. */

type Window = Extract<WindowAddress, { target: 'window' }>;

/** The world axis a 2D window steps through (MITK's standard planes; `original` is the axial frame). */
const AXIS: Record<ViewDirection, 0 | 1 | 2> = { axial: 2, sagittal: 0, coronal: 1, original: 2 };

/**
 * A window as the figure captured it. Its shape comes from a grab at its own size (the PNG's
 * header): the grab in the panel was scaled to the panel whatever the window's shape. `native`
 * is such a grab when the caller has one already.
 */
export async function panelView(window: Window, ctx: StepRunContext, native?: Uint8Array): Promise<PanelView> {
  const handle = windowHandle(ctx.client, window);
  const call = { signal: ctx.signal };
  const [camera, summary, grab] = await Promise.all([
    handle.camera(call),
    handle.summary(call),
    native ?? capture(ctx.client, window, { format: 'png', signal: ctx.signal }).then((shot) => shot.bytes),
  ]);
  const aspect = pngAspect(grab);
  if (summary.kind === '3d' || summary.view_direction === undefined) return { camera, aspect };
  return { camera, aspect, ...(await sliceOf(handle, summary.view_direction, call)) };
}

/**
 * The slab a 2D window shows: its position is the slice plane's lower face (MITK puts the plane
 * half a voxel below the voxel centre), its thickness the scene's extent over the step count.
 */
async function sliceOf(
  handle: ReturnType<typeof windowHandle>,
  direction: ViewDirection,
  call: { signal: AbortSignal },
): Promise<{ slice?: Slice }> {
  const s = await handle.selectedSlice(call);
  const { min_position: min, max_position: max, steps } = s.bounds;
  if (!min || !max || !(steps > 0)) return {};
  const axis = AXIS[direction];
  const thickness = (max[axis] - min[axis]) / steps;
  const normal: [number, number, number] = [0, 0, 0];
  normal[axis] = 1;
  const centre: [number, number, number] = [s.position[0], s.position[1], s.position[2]];
  centre[axis] += thickness / 2;
  return { slice: { normal, centre, thickness } };
}

function pngAspect(bytes: Uint8Array): number {
  const { width, height } = pngSize(bytes);
  return width > 0 && height > 0 ? width / height : 1;
}

/** A PNG's size from its header; 0×0 when it has none. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return bytes.length >= 24 ? { width: view.getUint32(16), height: view.getUint32(20) } : { width: 0, height: 0 };
}

/** A panel's annotations as drawn, and what they cover in the panel's own pixels. */
export interface PanelOverlay {
  marks: Mark[];
  occupied: Occupied[];
}

/**
 * A panel's annotations as marks in the figure's pixels. What is anchored in the patient
 * (arrows, circles, text, rulers) cannot move, so each inset goes to the first corner, its own
 * first, where it covers none of them, the region it magnifies, another inset or `taken` (the
 * panel letter); the step says where it went instead, or what it still covers. Each inset is
 * captured again with the camera zoomed onto its region, and the camera put back as it was,
 * even when a capture fails.
 */
export async function annotationMarks(
  panel: number,
  annotations: readonly Annotation[],
  window: Window,
  view: PanelView,
  cell: Rect,
  fontPx: number,
  ctx: StepRunContext,
  taken: readonly Occupied[] = [],
): Promise<PanelOverlay> {
  const drawn: Mark[][] = annotations.map(() => []);
  const occupied: Occupied[] = [...taken];
  const placingOf = (i: number): Placing => ({ view, cell, fontPx, name: annotationName(panel, annotations, i) });
  for (const [i, a] of annotations.entries()) {
    if (a.kind === 'inset') continue;
    const placing = placingOf(i);
    const placed = placeAnnotation(a, placing);
    placed.notices.forEach((n) => ctx.notice(n));
    drawn[i] = placed.marks;
    const bounds = boundsOf(placed.marks, fontPx);
    if (bounds) occupied.push({ name: placing.name.replace(/^panel \d+, /, ''), rect: within(bounds, cell) });
  }
  for (const [i, a] of annotations.entries()) {
    if (a.kind !== 'inset') continue;
    const placing = placingOf(i);
    let inset;
    const centre = projectPoint(view, a.at, cell.width, cell.height);
    if (centre) {
      const at = (corner: Corner): ReturnType<typeof insetBox> =>
        insetBox({ ...a, corner }, view, centre, cell, fontPx);
      const wanted = at(a.corner);
      const taken = [...occupied, { name: 'the region it magnifies', rect: wanted.region }];
      const choice = chooseCorner(a.corner, (c) => at(c).box, taken);
      const notice = placementNotice(
        placing.name,
        a.corner,
        choice,
        taken.filter((t) => overlaps(wanted.box, t.rect)).map((t) => t.name),
      );
      if (notice) ctx.notice(notice);
      const box = at(choice.corner);
      if (box.zoom < a.zoom - 0.05)
        ctx.notice(
          `${placing.name}: zoom ${a.zoom} would make the inset larger than half the panel; it shows ${box.zoom.toFixed(1)} times`,
        );
      const bytes = await zoomedCapture(window, view, zoomedCamera(view, a.at, a.size), box.box, ctx);
      inset = { bytes, region: box.region, box: box.box };
      const name = placing.name.replace(/^panel \d+, /, '');
      occupied.push({ name, rect: box.box }, { name: `the region ${name} magnifies`, rect: box.region });
    }
    const placed = placeAnnotation(a, placing, inset);
    placed.notices.forEach((n) => ctx.notice(n));
    drawn[i] = placed.marks;
  }
  return { marks: drawn.flat(), occupied: occupied.slice(taken.length) };
}

async function zoomedCapture(
  window: Window,
  view: PanelView,
  zoomed: Camera,
  size: Rect,
  ctx: StepRunContext,
): Promise<Uint8Array> {
  const handle = windowHandle(ctx.client, window);
  const call = { signal: ctx.signal };
  await handle.setCamera(patchOf(zoomed), call);
  try {
    const shot = await capture(ctx.client, window, {
      format: 'png',
      width: size.width,
      height: size.height,
      signal: ctx.signal,
    });
    return shot.bytes;
  } finally {
    await handle.setCamera({ ...patchOf(view.camera), view_up: [...view.camera.view_up] }, call);
  }
}

function patchOf(c: Camera): CameraPatch {
  return {
    position: [...c.position],
    focal_point: [...c.focal_point],
    ...(c.parallel_scale !== null ? { parallel_scale: c.parallel_scale } : {}),
    ...(c.perspective_angle !== null ? { perspective_angle: c.perspective_angle } : {}),
  };
}
