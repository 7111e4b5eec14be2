import { readFile } from 'node:fs/promises';
import { loadOnFirstUse } from '../image/codec-loader.js';
import { FONT_FAMILY, fontFaces } from './font.js';

/*
 * A figure's SVG carries its typeface, so it looks the same where DejaVu is not installed; but
 * the whole of DejaVu Sans in both weights is 1.9 MB of base64, ten times a panel. HarfBuzz's
 * subsetter (hb-subset, compiled to WebAssembly and shipped inside `subset-font`, so it works
 * offline) keeps only the glyphs the figure's texts use, with their cmap, so a browser or an
 * editor still maps the characters to them: a figure's two faces then take a few kilobytes.
 */

type SubsetFont = (
  font: Uint8Array,
  text: string,
  options: { targetFormat: 'truetype' | 'woff' | 'woff2' | 'sfnt' },
) => Promise<Uint8Array>;

const loadSubsetFont = loadOnFirstUse<SubsetFont>('subset-font');

/** The texts of a drawing, by weight. */
export interface UsedText {
  text: string;
  bold: boolean;
}

/**
 * CSS `@font-face` rules that carry, for each weight a text uses, a subset of the typeface with
 * just the characters used (and the space, which every font keeps).
 */
export async function subsetFontRules(texts: readonly UsedText[]): Promise<string> {
  const rules: string[] = [];
  for (const face of fontFaces()) {
    const used = texts.filter((t) => t.bold === (face.weight === 'bold')).map((t) => t.text);
    if (used.length === 0) continue;
    const characters = [...new Set([...` ${used.join('')}`])].sort().join('');
    const subset = await loadSubsetFont()(await readFile(face.file), characters, { targetFormat: 'truetype' });
    rules.push(
      `@font-face{font-family:'${FONT_FAMILY}';font-weight:${face.weight};src:url(data:font/ttf;base64,${Buffer.from(subset).toString('base64')}) format('truetype')}`,
    );
  }
  return rules.join('');
}
