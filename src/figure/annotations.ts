import type { Rect, Rgb } from '../image/rgba.js';
import type { Annotation, Direction } from './annotation-kinds.js';
import type { Mark, PathMark } from './marks.js';
import {
  distance,
  offSlice,
  pixelsPerMm,
  projectPoint,
  viewHeightMm,
  type PanelPoint,
  type PanelView,
  type Vec3,
} from './projection.js';
import { CAP_HALF } from './svg.js';

/*
 * Annotations anchored in the patient: each point is world millimetres, put into the panel by
 * the camera its window had when it was captured, so an arrow stays on its lesion when the zoom,
 * the pan or the data's geometry changes. Lengths on paper (an arrow's, a line's width) are
 * figure pixels by now; lengths in the patient (a circle's radius, an inset's region) are
 * millimetres, turned into pixels by the camera.
 */

/** Screen directions (x right, y down) of where an arrow comes from. */
const UNIT: Record<Direction, readonly [number, number]> = {
  up: [0, -1],
  down: [0, 1],
  left: [-1, 0],
  right: [1, 0],
  'up-left': [-Math.SQRT1_2, -Math.SQRT1_2],
  'up-right': [Math.SQRT1_2, -Math.SQRT1_2],
  'down-left': [-Math.SQRT1_2, Math.SQRT1_2],
  'down-right': [Math.SQRT1_2, Math.SQRT1_2],
};

/** What placing needs: the panel's window as captured, where the panel sits, the type size. */
export interface Placing {
  view: PanelView;
  cell: Rect;
  fontPx: number;
  /** How the annotation is named in notices: `panel 2, arrow 1`. */
  name: string;
}

export interface Placed {
  marks: Mark[];
  /** Points off the slice shown or outside the panel: one line each, naming the annotation and the distance. */
  notices: string[];
}

/** The label of a ruler: the distance in the patient, to a tenth of a millimetre. */
export function rulerLabel(from: Vec3, to: Vec3): string {
  return `${distance(from, to).toFixed(1)} mm`;
}

/** An annotation as marks in the figure's pixels (an inset needs its magnified capture: see insetBox). */
export function placeAnnotation(a: Annotation, p: Placing, inset?: InsetImage): Placed {
  const notices: string[] = [];
  const at = (point: Vec3): PanelPoint | undefined => locate(point, p, notices);
  const marks: Mark[] = [];
  const { cell, fontPx } = p;
  switch (a.kind) {
    case 'arrow': {
      const tip = at(a.to);
      if (!tip) break;
      const [ux, uy] = UNIT[a.from];
      const tx = cell.x + tip.x;
      const ty = cell.y + tip.y;
      const head = Math.min(a.length * 0.45, Math.max(a.width * 4, fontPx * 0.6));
      const half = head * 0.45;
      const bx = tx + ux * head;
      const by = ty + uy * head;
      const tail: [number, number] = [tx + ux * a.length, ty + uy * a.length];
      // The shaft stops inside the head, so its square end never shows past the head's sides.
      marks.push(line([tail, [tx + ux * head * 0.6, ty + uy * head * 0.6]], a.color, a.width), {
        kind: 'path',
        points: [
          [tx, ty],
          [bx - uy * half, by + ux * half],
          [bx + uy * half, by - ux * half],
        ],
        closed: true,
        fill: a.color,
      });
      if (a.label !== undefined && a.label !== '') marks.push(labelAtTail(a.label, tail, [ux, uy], a.color, fontPx));
      break;
    }
    case 'circle': {
      const c = at(a.at);
      if (!c) break;
      const scale = pixelsPerMm(p.view, c.depth, cell.width, cell.height);
      marks.push({
        kind: 'ellipse',
        cx: cell.x + c.x,
        cy: cell.y + c.y,
        rx: a.radius * scale.x,
        ry: a.radius * scale.y,
        stroke: a.color,
        strokeWidth: a.width,
      });
      break;
    }
    case 'text': {
      const c = at(a.at);
      if (c)
        marks.push({
          kind: 'text',
          x: cell.x + c.x,
          y: cell.y + c.y + CAP_HALF * fontPx,
          text: a.text,
          fill: a.color,
          anchor: 'middle',
        });
      break;
    }
    case 'ruler': {
      const from = at(a.from);
      const to = at(a.to);
      if (!from || !to) break;
      marks.push(...ruler(a, [cell.x + from.x, cell.y + from.y], [cell.x + to.x, cell.y + to.y], fontPx));
      break;
    }
    case 'inset': {
      const c = at(a.at);
      if (!c || !inset) break;
      const { region, box } = inset;
      marks.push(
        { kind: 'rect', ...offset(region, cell), stroke: a.color, strokeWidth: a.width },
        { kind: 'image', ...offset(box, cell), bytes: inset.bytes, mime: 'image/png' },
        { kind: 'rect', ...offset(box, cell), stroke: a.color, strokeWidth: a.width },
      );
      break;
    }
  }
  return { marks, notices };
}

/** An inset's magnified capture and where it goes, in the panel's own pixels. */
export interface InsetImage {
  bytes: Uint8Array;
  /** The region magnified, framed where it is. */
  region: Rect;
  /** The inset in its corner. */
  box: Rect;
}

/**
 * Where an inset's region and box lie in a panel. The region is `size` millimetres high around
 * the point, and as wide as the window's shape makes it; the box is the region `zoom` times,
 * held to half the panel either way (the zoom it shows is then less, and `zoom` says so).
 */
export function insetBox(
  a: Extract<Annotation, { kind: 'inset' }>,
  view: PanelView,
  centre: PanelPoint,
  panel: { width: number; height: number },
  fontPx: number,
): { region: Rect; box: Rect; zoom: number } {
  const share = a.size / viewHeightMm(view, centre.depth);
  const rw = share * panel.width;
  const rh = share * panel.height;
  const zoom = Math.min(a.zoom, (panel.width * 0.5) / rw, (panel.height * 0.5) / rh);
  const width = Math.max(8, Math.round(rw * zoom));
  const height = Math.max(8, Math.round(rh * zoom));
  const pad = Math.round(fontPx * 0.6);
  const left = a.corner.endsWith('left');
  const top = a.corner.startsWith('top');
  return {
    region: { x: centre.x - rw / 2, y: centre.y - rh / 2, width: rw, height: rh },
    box: {
      x: left ? pad : panel.width - pad - width,
      y: top ? pad : panel.height - pad - height,
      width,
      height,
    },
    zoom,
  };
}

/** A point in the panel, with a notice when it is off the slice shown or outside the panel. */
function locate(point: Vec3, p: Placing, notices: string[]): PanelPoint | undefined {
  const { view, cell, name } = p;
  const shown = `[${point.join(', ')}]`;
  if (view.slice) {
    const off = offSlice(view, point);
    if (off > view.slice.thickness / 2 + 1e-6)
      notices.push(
        `${name}: ${shown} lies ${mm(off)} mm from the middle of the slice shown (${mm(view.slice.thickness)} mm thick)`,
      );
  }
  const at = projectPoint(view, point, cell.width, cell.height);
  if (!at) {
    notices.push(`${name}: ${shown} lies behind the camera`);
    return undefined;
  }
  const outside = Math.max(-at.x, at.x - cell.width, -at.y, at.y - cell.height);
  if (outside > 0) notices.push(`${name}: ${shown} lies ${Math.ceil(outside)} pixels outside the panel`);
  return at;
}

function ruler(
  a: Extract<Annotation, { kind: 'ruler' }>,
  from: [number, number],
  to: [number, number],
  fontPx: number,
): Mark[] {
  const dx = to[0] - from[0];
  const dy = to[1] - from[1];
  const len = Math.hypot(dx, dy) || 1;
  // The normal that points up the page (or right, for an upright line): ticks across, label on that side.
  let nx = dy / len;
  let ny = -dx / len;
  if (ny > 0 || (ny === 0 && nx < 0)) [nx, ny] = [-nx, -ny];
  const tick = fontPx * 0.35;
  const across = (q: [number, number]): PathMark =>
    line(
      [
        [q[0] - nx * tick, q[1] - ny * tick],
        [q[0] + nx * tick, q[1] + ny * tick],
      ],
      a.color,
      a.width,
    );
  const mid: [number, number] = [(from[0] + to[0]) / 2, (from[1] + to[1]) / 2];
  const gap = fontPx * 0.9;
  return [
    line([from, to], a.color, a.width),
    across(from),
    across(to),
    {
      kind: 'text',
      x: mid[0] + nx * gap,
      y: mid[1] + ny * gap + CAP_HALF * fontPx,
      text: rulerLabel(a.from, a.to),
      fill: a.color,
      anchor: 'middle',
    },
  ];
}

/** A label just beyond an arrow's tail, on the side the arrow comes from. */
function labelAtTail(
  text: string,
  tail: [number, number],
  [ux, uy]: readonly [number, number],
  color: Rgb,
  fontPx: number,
): Mark {
  const gap = fontPx * 0.3;
  const anchor = ux < -0.1 ? 'end' : ux > 0.1 ? 'start' : 'middle';
  const y = uy < -0.1 ? tail[1] - gap : uy > 0.1 ? tail[1] + gap + 2 * CAP_HALF * fontPx : tail[1] + CAP_HALF * fontPx;
  return { kind: 'text', x: tail[0] + Math.sign(Math.round(ux * 10)) * gap, y, text, fill: color, anchor };
}

function line(points: ReadonlyArray<readonly [number, number]>, stroke: Rgb, strokeWidth: number): PathMark {
  return { kind: 'path', points, closed: false, stroke, strokeWidth };
}

function offset(r: Rect, cell: Rect): Rect {
  return { x: cell.x + r.x, y: cell.y + r.y, width: r.width, height: r.height };
}

function mm(value: number): string {
  return String(Number(value.toFixed(1)));
}
