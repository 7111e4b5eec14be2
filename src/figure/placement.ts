import type { Rect } from '../image/rgba.js';
import { CORNERS, type Corner } from './annotation-kinds.js';
import type { Mark } from './marks.js';

/*
 * What a panel already shows, so the parts placed in a corner (insets, the scale bar) go where
 * they cover nothing: a scale bar inside a magnified inset reads at the inset's scale, and an
 * inset over the region it magnifies hides what it is about.
 */

/** A part of a panel that must stay visible, in the panel's own pixels, with the words for it in notices. */
export interface Occupied {
  name: string;
  rect: Rect;
}

/** The corners to try, the wanted one first, then the others nearest it. */
export function cornersFrom(wanted: Corner): Corner[] {
  const [vertical, horizontal] = wanted.split('-') as [string, string];
  const flipH = `${vertical}-${horizontal === 'left' ? 'right' : 'left'}` as Corner;
  const flipV = `${vertical === 'top' ? 'bottom' : 'top'}-${horizontal}` as Corner;
  return [wanted, flipH, flipV, ...CORNERS.filter((c) => c !== wanted && c !== flipH && c !== flipV)];
}

export function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

export interface CornerChoice {
  corner: Corner;
  /** What the part covers at the corner chosen: empty when it covers nothing. */
  covers: string[];
}

/**
 * The first corner, the wanted one first, where the part's box covers none of `taken`; when
 * every corner covers something, the wanted corner with what it covers there.
 */
export function chooseCorner(wanted: Corner, boxAt: (c: Corner) => Rect, taken: readonly Occupied[]): CornerChoice {
  const coveredAt = (c: Corner): string[] => taken.filter((t) => overlaps(boxAt(c), t.rect)).map((t) => t.name);
  for (const corner of cornersFrom(wanted)) if (coveredAt(corner).length === 0) return { corner, covers: [] };
  return { corner: wanted, covers: coveredAt(wanted) };
}

/** The notice for a part moved from its corner, or left covering something; undefined when neither. */
export function placementNotice(
  name: string,
  wanted: Corner,
  choice: CornerChoice,
  wantedCovers: string[],
): string | undefined {
  if (choice.covers.length > 0)
    return `${name} covers ${words(choice.covers)} in every corner; it stays ${wanted}: make it smaller or move what it covers`;
  if (choice.corner !== wanted)
    return `${name} is drawn ${choice.corner}, not ${wanted}, where it would cover ${words(wantedCovers)}`;
  return undefined;
}

function words(names: readonly string[]): string {
  const unique = [...new Set(names)];
  return unique.length <= 1 ? (unique[0] ?? '') : `${unique.slice(0, -1).join(', ')} and ${unique[unique.length - 1]}`;
}

/** The box a list of marks covers, in the same pixels as the marks; undefined for none. */
export function boundsOf(marks: readonly Mark[], fontPx: number): Rect | undefined {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const add = (ax: number, ay: number, bx: number, by: number): void => {
    x0 = Math.min(x0, ax);
    y0 = Math.min(y0, ay);
    x1 = Math.max(x1, bx);
    y1 = Math.max(y1, by);
  };
  for (const m of marks) {
    switch (m.kind) {
      case 'rect':
      case 'image':
      case 'ramp':
      case 'clip':
        add(m.x, m.y, m.x + m.width, m.y + m.height);
        break;
      case 'ellipse':
        add(m.cx - m.rx, m.cy - m.ry, m.cx + m.rx, m.cy + m.ry);
        break;
      case 'path':
        for (const [px, py] of m.points) add(px, py, px, py);
        break;
      case 'text': {
        // Text is measured roughly: about 0.6 of the type size per character, a capital high.
        const size = m.size ?? fontPx;
        const width = m.text.length * size * 0.6;
        const left = m.anchor === 'middle' ? m.x - width / 2 : m.anchor === 'end' ? m.x - width : m.x;
        add(left, m.y - size * 0.8, left + width, m.y + size * 0.2);
        break;
      }
    }
  }
  return Number.isFinite(x0) ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : undefined;
}

/** A rectangle moved by (-dx, -dy): from the figure's pixels into a panel's. */
export function within(r: Rect, origin: { x: number; y: number }): Rect {
  return { x: r.x - origin.x, y: r.y - origin.y, width: r.width, height: r.height };
}
