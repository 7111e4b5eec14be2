import { to8 } from '../image/pixels.js';
import type { Rect, Rgb } from '../image/rgba.js';
import { esc } from '../markup/escape.js';
import { endValue, type PlacedColourBar } from './colour-bar.js';
import { embeddedFontRules, FONT_FAMILY } from './font.js';
import type { Geometry } from './geometry.js';
import type { Corner } from './annotation-kinds.js';
import type { Mark, TextMark } from './marks.js';

/** A scale bar as drawn: its length in pixels (from the camera), its label and its corner. */
export interface ScaleBar {
  length: number;
  label: string;
  color: Rgb;
  /** Default bottom-right. */
  corner?: Corner;
}

export interface FigurePanel {
  /** Index into the geometry's cells. */
  cell: number;
  bytes: Uint8Array;
  mime: 'image/png' | 'image/jpeg';
  letter?: string;
  title?: string;
  scaleBar?: ScaleBar;
  /** Annotations and insets, placed in the figure's pixels; drawn inside the panel only. */
  overlay?: Mark[];
}

/** A legend entry where the layout put it: its line's top-left corner. */
export interface PlacedLegendEntry {
  name: string;
  color: Rgb;
  x: number;
  y: number;
}

/** Everything a figure shows, placed: the one description the SVG, the PNG and the PDF are made from. */
export interface FigureDrawing {
  geometry: Geometry;
  fontPx: number;
  background: Rgb;
  textColor: Rgb;
  letterColor: Rgb;
  panels: FigurePanel[];
  columnHeadings: readonly string[];
  rowHeadings: readonly string[];
  legend: readonly PlacedLegendEntry[];
  /** Colour scales of nodes, one legend line each, after the entries. */
  colourBars?: readonly PlacedColourBar[];
  /** Provenance and other facts, kept in the SVG's `<metadata>`. */
  metadata?: Record<string, string>;
}

/** Shares of the type size, so every part scales with it. */
const LETTER_SCALE = 1.25;
/** From the centre of a line to the baseline: about half the height of a capital. */
export const CAP_HALF = 0.36;
export const SWATCH_SCALE = 0.8;
export const SWATCH_SPACE = 0.4;
export const ENTRY_SPACE = 1.2;

/**
 * Where a scale bar of a length sits in its panel: in its corner, clear of the edges. Its label
 * is on the side towards the panel's middle (above a bar at the bottom, below one at the top).
 */
export function scaleBarRect(cell: Rect, length: number, fontPx: number, corner: Corner = 'bottom-right'): Rect {
  const pad = Math.round(fontPx * 0.6);
  const thickness = Math.max(2, Math.round(fontPx * 0.25));
  const top = corner.startsWith('top');
  const left = corner.endsWith('left');
  return {
    x: left ? cell.x + pad : cell.x + cell.width - pad - length,
    y: top ? cell.y + pad : cell.y + cell.height - pad - thickness,
    width: length,
    height: thickness,
  };
}

/** The baseline of a scale bar's label. */
function scaleLabelY(bar: Rect, fontPx: number, corner: Corner): number {
  return corner.startsWith('top')
    ? bar.y + bar.height + Math.round(fontPx * 0.3) + fontPx * 0.75
    : bar.y - Math.round(fontPx * 0.3);
}

/** What a scale bar covers with its label, to keep other parts of the panel off it. */
export function scaleBarBox(
  cell: Rect,
  bar: ScaleBar,
  fontPx: number,
  corner: Corner = bar.corner ?? 'bottom-right',
): Rect {
  const r = scaleBarRect(cell, bar.length, fontPx, corner);
  const labelWidth = bar.label.length * fontPx * 0.6;
  const x = Math.min(r.x, r.x + r.width / 2 - labelWidth / 2);
  const width = Math.max(r.width, labelWidth);
  const labelHeight = Math.round(fontPx * 0.3) + fontPx;
  return corner.startsWith('top')
    ? { x, y: r.y, width, height: r.height + labelHeight }
    : { x, y: r.y - labelHeight, width, height: r.height + labelHeight };
}

/** What a panel letter covers in the top-left corner of its panel. */
export function letterBox(cell: Rect, letter: string, fontPx: number): Rect {
  const size = fontPx * LETTER_SCALE;
  const pad = Math.round(fontPx * 0.4);
  return { x: cell.x + pad, y: cell.y + pad, width: Math.max(1, letter.length) * size * 0.75, height: size };
}

/** The figure as marks, in drawing order: background, headings, panels with their overlays, legend. */
export function figureMarks(d: FigureDrawing): Mark[] {
  const { geometry: g, fontPx } = d;
  const marks: Mark[] = [{ kind: 'rect', x: 0, y: 0, width: g.width, height: g.height, fill: d.background }];
  d.columnHeadings.forEach((text, c) => {
    const r = g.columnHeadings[c];
    if (r && text !== '') marks.push(centred(text, r, d.textColor, fontPx));
  });
  d.rowHeadings.forEach((text, row) => {
    const r = g.rowHeadings[row];
    if (!r || text === '') return;
    const cx = r.x + r.width / 2;
    const cy = r.y + r.height / 2;
    marks.push({ kind: 'text', x: cx + CAP_HALF * fontPx, y: cy, text, fill: d.textColor, anchor: 'middle', turn: 90 });
  });
  for (const p of d.panels) {
    const cell = g.cells[p.cell];
    if (!cell) continue;
    marks.push({ kind: 'image', ...cell, bytes: p.bytes, mime: p.mime, fit: true });
    const band = g.titleBands[p.cell];
    if (p.title !== undefined && band && band.height > 0) marks.push(centred(p.title, band, d.textColor, fontPx));
    if (p.overlay && p.overlay.length > 0) marks.push({ kind: 'clip', ...cell, marks: p.overlay });
    if (p.letter !== undefined && p.letter !== '') {
      const size = fontPx * LETTER_SCALE;
      const pad = Math.round(fontPx * 0.4);
      marks.push({
        kind: 'text',
        x: cell.x + pad,
        y: cell.y + pad + size * 0.73,
        text: p.letter,
        fill: d.letterColor,
        size,
        bold: true,
      });
    }
    if (p.scaleBar) {
      const corner = p.scaleBar.corner ?? 'bottom-right';
      const bar = scaleBarRect(cell, p.scaleBar.length, fontPx, corner);
      const color = p.scaleBar.color;
      marks.push(
        { kind: 'rect', ...bar, fill: color, crisp: true },
        {
          kind: 'text',
          x: bar.x + bar.width / 2,
          y: scaleLabelY(bar, fontPx, corner),
          text: p.scaleBar.label,
          fill: color,
          anchor: 'middle',
        },
      );
    }
  }
  const swatch = Math.round(fontPx * SWATCH_SCALE);
  for (const e of d.legend) {
    const top = e.y + Math.floor((g.lineHeight - swatch) / 2);
    marks.push(
      { kind: 'rect', x: e.x, y: top, width: swatch, height: swatch, fill: e.color, crisp: true },
      {
        kind: 'text',
        x: e.x + swatch + Math.round(fontPx * SWATCH_SPACE),
        y: e.y + g.lineHeight / 2 + CAP_HALF * fontPx,
        text: e.name,
        fill: d.textColor,
      },
    );
  }
  const baseline = g.lineHeight / 2 + CAP_HALF * fontPx;
  for (const b of d.colourBars ?? []) {
    const y = b.y + baseline;
    marks.push(
      { kind: 'text', x: b.labelX, y, text: b.label, fill: d.textColor },
      { kind: 'text', x: b.lowX, y, text: endValue(b.low), fill: d.textColor },
      { kind: 'ramp', ...b.bar, colours: b.colours, stroke: d.textColor },
      { kind: 'text', x: b.highX, y, text: endValue(b.high), fill: d.textColor },
    );
  }
  return marks;
}

/**
 * The figure as SVG: panels as embedded images, every letter, heading, title, scale bar,
 * annotation and legend entry as text and shapes that stay editable. `fonts` is CSS that carries
 * the typeface inside the file (see font-subset.ts); `embedFonts` embeds the whole typeface.
 */
export function figureSvg(d: FigureDrawing, options: { embedFonts: boolean; fonts?: string }): string {
  const { geometry: g, fontPx } = d;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${g.width}" height="${g.height}" viewBox="0 0 ${g.width} ${g.height}" font-family="${FONT_FAMILY}" font-size="${num(fontPx)}">`,
  );
  if (d.metadata) {
    const facts = Object.entries(d.metadata).map(([k, v]) => `<wbplay:fact name="${esc(k)}">${esc(v)}</wbplay:fact>`);
    out.push(`<metadata xmlns:wbplay="https://wbplay.dev/figure">${facts.join('')}</metadata>`);
  }
  const fonts = options.fonts ?? (options.embedFonts ? embeddedFontRules() : undefined);
  if (fonts !== undefined) out.push(`<style>${fonts}</style>`);
  const ids = { clip: 0, ramp: 0 };
  for (const m of figureMarks(d)) out.push(...markSvg(m, ids));
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function markSvg(m: Mark, ids: { clip: number; ramp: number }): string[] {
  switch (m.kind) {
    case 'text':
      return [textSvg(m)];
    case 'rect': {
      const fill = m.fill ? hex(m.fill) : 'none';
      const stroke = m.stroke ? ` stroke="${hex(m.stroke)}" stroke-width="${num(m.strokeWidth ?? 1)}"` : '';
      return [
        `<rect x="${num(m.x)}" y="${num(m.y)}" width="${num(m.width)}" height="${num(m.height)}" fill="${fill}"${stroke}${m.crisp ? ' shape-rendering="crispEdges"' : ''}/>`,
      ];
    }
    case 'ellipse': {
      const stroke = `fill="none" stroke="${hex(m.stroke)}" stroke-width="${num(m.strokeWidth)}"`;
      // A circle in the patient stays a <circle> wherever the panel keeps the window's shape.
      return Math.abs(m.rx - m.ry) < 0.01
        ? [`<circle cx="${num(m.cx)}" cy="${num(m.cy)}" r="${num(m.rx)}" ${stroke}/>`]
        : [`<ellipse cx="${num(m.cx)}" cy="${num(m.cy)}" rx="${num(m.rx)}" ry="${num(m.ry)}" ${stroke}/>`];
    }
    case 'path': {
      const points = m.points.map(([x, y]) => `${num(x)},${num(y)}`).join(' ');
      const paint = `fill="${m.fill ? hex(m.fill) : 'none'}"${m.stroke ? ` stroke="${hex(m.stroke)}" stroke-width="${num(m.strokeWidth ?? 1)}" stroke-linecap="butt" stroke-linejoin="miter"` : ''}`;
      return [`<${m.closed ? 'polygon' : 'polyline'} points="${points}" ${paint}/>`];
    }
    case 'image':
      return [
        `<image x="${num(m.x)}" y="${num(m.y)}" width="${num(m.width)}" height="${num(m.height)}" preserveAspectRatio="${m.fit ? 'xMidYMid meet' : 'none'}" href="data:${m.mime};base64,${Buffer.from(m.bytes).toString('base64')}"/>`,
      ];
    case 'ramp':
      return rampSvg(m, `wbplay-colour-bar-${ids.ramp++}`);
    case 'clip': {
      const id = `wbplay-panel-${ids.clip++}`;
      return [
        `<clipPath id="${id}"><rect x="${num(m.x)}" y="${num(m.y)}" width="${num(m.width)}" height="${num(m.height)}"/></clipPath>`,
        `<g clip-path="url(#${id})">`,
        ...m.marks.flatMap((inner) => markSvg(inner, ids)),
        '</g>',
      ];
    }
  }
}

function textSvg(m: TextMark): string {
  const attrs = [`x="${num(m.x)}"`, `y="${num(m.y)}"`];
  if (m.size !== undefined) attrs.push(`font-size="${num(m.size)}"`);
  if (m.bold) attrs.push('font-weight="bold"');
  if (m.anchor && m.anchor !== 'start') attrs.push(`text-anchor="${m.anchor}"`);
  attrs.push(`fill="${hex(m.fill)}"`);
  if (m.turn) attrs.push(`transform="rotate(-${m.turn} ${num(m.x)} ${num(m.y)})"`);
  return `<text ${attrs.join(' ')}>${esc(m.text)}</text>`;
}

/**
 * A colour bar: a left-to-right gradient through the table's entries (transparent ones let the
 * background through, as over an image), framed.
 */
function rampSvg(m: Extract<Mark, { kind: 'ramp' }>, id: string): string[] {
  const n = m.colours.length;
  const stops = m.colours.map(([r, g, bl, a], i) => {
    const opacity = a < 1 ? ` stop-opacity="${num(a)}"` : '';
    return `<stop offset="${n === 1 ? 0 : Number((i / (n - 1)).toFixed(5))}" stop-color="${hex([r, g, bl])}"${opacity}/>`;
  });
  return [
    `<linearGradient id="${id}" x1="0" y1="0" x2="1" y2="0">${stops.join('')}</linearGradient>`,
    `<rect x="${num(m.x)}" y="${num(m.y)}" width="${num(m.width)}" height="${num(m.height)}" fill="url(#${id})" stroke="${hex(m.stroke)}" stroke-width="0.5"/>`,
  ];
}

function centred(text: string, r: Rect, color: Rgb, fontPx: number): TextMark {
  return {
    kind: 'text',
    x: r.x + r.width / 2,
    y: r.y + r.height / 2 + CAP_HALF * fontPx,
    text,
    fill: color,
    anchor: 'middle',
  };
}

/** Two decimals at most, and none for whole numbers, so the text is the same on every machine. */
export function num(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(2)));
}

export function hex(color: Rgb): string {
  return `#${color.map((c) => to8(c).toString(16).padStart(2, '0')).join('')}`;
}
