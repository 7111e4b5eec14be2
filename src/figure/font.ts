import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The one typeface of every figure: DejaVu Sans, shipped as a dependency (its licence lets it
 * be embedded and passed on). Figures never fall back to a system font, so the same playbook
 * gives the same pixels on every machine.
 */
export const FONT_FAMILY = 'DejaVu Sans';

export interface FontFace {
  weight: 'normal' | 'bold';
  file: string;
}

let faces: FontFace[] | undefined;

export function fontFaces(): FontFace[] {
  if (!faces) {
    const folder = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
    faces = [
      { weight: 'normal', file: join(folder, 'DejaVuSans.ttf') },
      { weight: 'bold', file: join(folder, 'DejaVuSans-Bold.ttf') },
    ];
  }
  return faces;
}

let faceRules: string | undefined;

/**
 * CSS that carries the font inside an SVG, so a browser or an editor draws its text with the
 * same glyphs as the PNG without the font being installed.
 */
export function embeddedFontRules(): string {
  faceRules ??= fontFaces()
    .map(
      (face) =>
        `@font-face{font-family:'${FONT_FAMILY}';font-weight:${face.weight};src:url(data:font/ttf;base64,${readFileSync(face.file).toString('base64')}) format('truetype')}`,
    )
    .join('');
  return faceRules;
}
