import { to8 } from '../image/pixels.js';
import type { Rect, Rgb } from '../image/rgba.js';
import { esc } from '../markup/escape.js';
import { endValue, type PlacedColourBar } from './colour-bar.js';
import { embeddedFontRules, FONT_FAMILY } from './font.js';
import type { Geometry } from './geometry.js';

/** A scale bar as drawn: its length in pixels (from the camera) and its label. */
export interface ScaleBar {
  length: number;
  label: string;
  color: Rgb;
}

export interface FigurePanel {
  /** Index into the geometry's cells. */
  cell: number;
  bytes: Uint8Array;
  mime: 'image/png' | 'image/jpeg';
  letter?: string;
  title?: string;
  scaleBar?: ScaleBar;
}

/** A legend entry where the layout put it: its line's top-left corner. */
export interface PlacedLegendEntry {
  name: string;
  color: Rgb;
  x: number;
  y: number;
}

/** Everything a figure shows, placed: the one description both the SVG and the PNG are made from. */
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
const CAP_HALF = 0.36;
export const SWATCH_SCALE = 0.8;
export const SWATCH_SPACE = 0.4;
export const ENTRY_SPACE = 1.2;

/** Where a scale bar of a length sits in its panel (bottom right, clear of the edges). */
export function scaleBarRect(cell: Rect, length: number, fontPx: number): Rect {
  const pad = Math.round(fontPx * 0.6);
  const thickness = Math.max(2, Math.round(fontPx * 0.25));
  return {
    x: cell.x + cell.width - pad - length,
    y: cell.y + cell.height - pad - thickness,
    width: length,
    height: thickness,
  };
}

/**
 * The figure as SVG: panels as embedded images, every letter, heading, title, scale bar and
 * legend entry as text and shapes that stay editable. With `embedFonts` the typeface travels
 * inside the file, so it looks the same where the font is not installed.
 */
export function figureSvg(d: FigureDrawing, options: { embedFonts: boolean }): string {
  const { geometry: g, fontPx } = d;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${g.width}" height="${g.height}" viewBox="0 0 ${g.width} ${g.height}" font-family="${FONT_FAMILY}" font-size="${num(fontPx)}">`,
  );
  if (d.metadata) {
    const facts = Object.entries(d.metadata).map(([k, v]) => `<wbplay:fact name="${esc(k)}">${esc(v)}</wbplay:fact>`);
    out.push(`<metadata xmlns:wbplay="https://wbplay.dev/figure">${facts.join('')}</metadata>`);
  }
  if (options.embedFonts) out.push(`<style>${embeddedFontRules()}</style>`);
  out.push(`<rect width="${g.width}" height="${g.height}" fill="${hex(d.background)}"/>`);

  d.columnHeadings.forEach((text, c) => {
    const r = g.columnHeadings[c];
    if (r && text !== '') out.push(centred(text, r, d.textColor, fontPx));
  });
  d.rowHeadings.forEach((text, row) => {
    const r = g.rowHeadings[row];
    if (!r || text === '') return;
    const cx = r.x + r.width / 2;
    const cy = r.y + r.height / 2;
    out.push(
      `<text x="${num(cx)}" y="${num(cy + CAP_HALF * fontPx)}" text-anchor="middle" fill="${hex(d.textColor)}" transform="rotate(-90 ${num(cx)} ${num(cy)})">${esc(text)}</text>`,
    );
  });

  for (const p of d.panels) {
    const cell = g.cells[p.cell];
    if (!cell) continue;
    out.push(
      `<image x="${cell.x}" y="${cell.y}" width="${cell.width}" height="${cell.height}" preserveAspectRatio="xMidYMid meet" href="data:${p.mime};base64,${Buffer.from(p.bytes).toString('base64')}"/>`,
    );
    const band = g.titleBands[p.cell];
    if (p.title !== undefined && band && band.height > 0) out.push(centred(p.title, band, d.textColor, fontPx));
    if (p.letter !== undefined && p.letter !== '') {
      const size = fontPx * LETTER_SCALE;
      const pad = Math.round(fontPx * 0.4);
      out.push(
        `<text x="${cell.x + pad}" y="${num(cell.y + pad + size * 0.73)}" font-size="${num(size)}" font-weight="bold" fill="${hex(d.letterColor)}">${esc(p.letter)}</text>`,
      );
    }
    if (p.scaleBar) {
      const bar = scaleBarRect(cell, p.scaleBar.length, fontPx);
      const color = hex(p.scaleBar.color);
      out.push(
        `<rect x="${bar.x}" y="${bar.y}" width="${bar.width}" height="${bar.height}" fill="${color}" shape-rendering="crispEdges"/>`,
        `<text x="${num(bar.x + bar.width / 2)}" y="${num(bar.y - Math.round(fontPx * 0.3))}" text-anchor="middle" fill="${color}">${esc(p.scaleBar.label)}</text>`,
      );
    }
  }

  const swatch = Math.round(fontPx * SWATCH_SCALE);
  for (const e of d.legend) {
    const top = e.y + Math.floor((g.lineHeight - swatch) / 2);
    out.push(
      `<rect x="${e.x}" y="${top}" width="${swatch}" height="${swatch}" fill="${hex(e.color)}" shape-rendering="crispEdges"/>`,
      `<text x="${e.x + swatch + Math.round(fontPx * SWATCH_SPACE)}" y="${num(e.y + g.lineHeight / 2 + CAP_HALF * fontPx)}" fill="${hex(d.textColor)}">${esc(e.name)}</text>`,
    );
  }
  (d.colourBars ?? []).forEach((b, i) =>
    out.push(...colourBarSvg(b, `wbplay-colour-bar-${i}`, d.textColor, g.lineHeight / 2 + CAP_HALF * fontPx)),
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/**
 * A colour bar: a left-to-right gradient through the table's entries (transparent ones let the
 * background through, as over an image), framed, with its label and end values as text.
 */
function colourBarSvg(b: PlacedColourBar, id: string, textColor: Rgb, baseline: number): string[] {
  const n = b.colours.length;
  const stops = b.colours.map(([r, g, bl, a], i) => {
    const opacity = a < 1 ? ` stop-opacity="${num(a)}"` : '';
    return `<stop offset="${n === 1 ? 0 : Number((i / (n - 1)).toFixed(5))}" stop-color="${hex([r, g, bl])}"${opacity}/>`;
  });
  const fill = hex(textColor);
  const y = num(b.y + baseline);
  return [
    `<linearGradient id="${id}" x1="0" y1="0" x2="1" y2="0">${stops.join('')}</linearGradient>`,
    `<text x="${b.labelX}" y="${y}" fill="${fill}">${esc(b.label)}</text>`,
    `<text x="${b.lowX}" y="${y}" fill="${fill}">${esc(endValue(b.low))}</text>`,
    `<rect x="${b.bar.x}" y="${b.bar.y}" width="${b.bar.width}" height="${b.bar.height}" fill="url(#${id})" stroke="${fill}" stroke-width="0.5"/>`,
    `<text x="${b.highX}" y="${y}" fill="${fill}">${esc(endValue(b.high))}</text>`,
  ];
}

function centred(text: string, r: Rect, color: Rgb, fontPx: number): string {
  return `<text x="${num(r.x + r.width / 2)}" y="${num(r.y + r.height / 2 + CAP_HALF * fontPx)}" text-anchor="middle" fill="${hex(color)}">${esc(text)}</text>`;
}

/** Two decimals at most, and none for whole numbers, so the text is the same on every machine. */
function num(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(2)));
}

function hex(color: Rgb): string {
  return `#${color.map((c) => to8(c).toString(16).padStart(2, '0')).join('')}`;
}
