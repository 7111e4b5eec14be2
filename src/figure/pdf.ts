import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type * as PdfLib from 'pdf-lib';
import type { PDFFont, PDFPage } from 'pdf-lib';
import { loadOnFirstUse } from '../image/codec-loader.js';
import type { Rgb } from '../image/rgba.js';
import { fontFaces } from './font.js';
import type { Mark, TextMark } from './marks.js';
import { textsOf } from './marks.js';
import { pdfImage, type PlacedImage } from './pdf-image.js';
import { figureMarks, type FigureDrawing } from './svg.js';

/*
 * The figure as PDF, written from the same marks as the SVG: panels as images at their captured
 * pixels, every letter, heading, label and annotation as vector shapes and text in DejaVu Sans,
 * embedded as a subset of the glyphs used (pdf-lib with its fontkit), so the text can be found,
 * copied and edited. The page is the figure's size: its pixels at its dpi.
 */

const loadPdfLib = loadOnFirstUse<typeof PdfLib>('pdf-lib');
const loadFontkit = loadOnFirstUse<{ default?: unknown } & object>('@pdf-lib/fontkit');

const POINTS_PER_INCH = 72;

interface Page {
  lib: typeof PdfLib;
  page: PDFPage;
  /** Points per figure pixel. */
  k: number;
  height: number;
  fonts: { normal: PDFFont; bold: PDFFont };
  fontPx: number;
  images: Map<Uint8Array, PlacedImage>;
}

export async function figurePdf(d: FigureDrawing, dpi: number): Promise<Uint8Array> {
  const lib = loadPdfLib();
  const doc = await lib.PDFDocument.create({ updateMetadata: false });
  const fontkit = loadFontkit();
  doc.registerFontkit(
    ('default' in fontkit ? fontkit.default : fontkit) as Parameters<PdfLib.PDFDocument['registerFontkit']>[0],
  );
  const marks = figureMarks(d);
  // A subset's name starts with six capitals that tell subsets apart; taken from the text it
  // serves, not drawn at random, so the same figure gives the same bytes.
  const tag = tagOf(
    textsOf(marks)
      .map((t) => t.text)
      .join('\n'),
  );
  const [normal, bold] = fontFaces();
  const fonts = {
    normal: await doc.embedFont(await readFile(normal!.file), { subset: true, customName: `${tag}+DejaVuSans` }),
    bold: await doc.embedFont(await readFile(bold!.file), { subset: true, customName: `${tag}+DejaVuSans-Bold` }),
  };
  const k = POINTS_PER_INCH / dpi;
  const height = d.geometry.height * k;
  const page = doc.addPage([d.geometry.width * k, height]);
  doc.setProducer('wbplay');
  if (d.metadata?.['wbplay:playbook']) doc.setSubject(`made by ${d.metadata['wbplay:playbook']}`);
  const ctx: Page = { lib, page, k, height, fonts, fontPx: d.fontPx, images: new Map() };
  for (const m of marks) await drawMark(ctx, m);
  return doc.save({ useObjectStreams: false });
}

async function drawMark(c: Page, m: Mark): Promise<void> {
  const { lib, page, k } = c;
  const y = (v: number): number => c.height - v * k;
  switch (m.kind) {
    case 'text':
      return drawText(c, m);
    case 'rect':
      page.drawRectangle({
        x: m.x * k,
        y: y(m.y + m.height),
        width: m.width * k,
        height: m.height * k,
        ...(m.fill ? { color: colour(c, m.fill) } : {}),
        ...(m.stroke ? { borderColor: colour(c, m.stroke), borderWidth: (m.strokeWidth ?? 1) * k } : {}),
      });
      return;
    case 'ellipse':
      page.drawEllipse({
        x: m.cx * k,
        y: y(m.cy),
        xScale: m.rx * k,
        yScale: m.ry * k,
        borderColor: colour(c, m.stroke),
        borderWidth: m.strokeWidth * k,
      });
      return;
    case 'path': {
      const path =
        m.points.map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${px} ${py}`).join(' ') + (m.closed ? ' Z' : '');
      // drawSvgPath scales the path and its line width alike: both are given in figure pixels.
      page.drawSvgPath(path, {
        x: 0,
        y: c.height,
        scale: k,
        ...(m.fill ? { color: colour(c, m.fill) } : {}),
        ...(m.stroke ? { borderColor: colour(c, m.stroke), borderWidth: m.strokeWidth ?? 1 } : {}),
      });
      return;
    }
    case 'image': {
      let image = c.images.get(m.bytes);
      if (!image) {
        image = await pdfImage(page.doc, page, m.bytes, m.mime);
        c.images.set(m.bytes, image);
      }
      let { x, y: top, width, height } = m;
      if (m.fit) {
        const s = Math.min(width / image.width, height / image.height);
        x += (width - image.width * s) / 2;
        top += (height - image.height * s) / 2;
        width = image.width * s;
        height = image.height * s;
      }
      page.pushOperators(
        ...lib.drawImage(image.name, {
          x: x * k,
          y: y(top + height),
          width: width * k,
          height: height * k,
          rotate: lib.degrees(0),
          xSkew: lib.degrees(0),
          ySkew: lib.degrees(0),
        }),
      );
      return;
    }
    case 'ramp': {
      // A PDF shading would need a function per stop; one thin box per table entry draws the same.
      const n = m.colours.length;
      m.colours.forEach(([r, g, b, a], i) => {
        page.drawRectangle({
          x: (m.x + (m.width * i) / n) * k,
          y: y(m.y + m.height),
          width: (m.width / n) * k + (i < n - 1 ? 0.01 : 0),
          height: m.height * k,
          color: lib.rgb(r, g, b),
          opacity: a,
        });
      });
      page.drawRectangle({
        x: m.x * k,
        y: y(m.y + m.height),
        width: m.width * k,
        height: m.height * k,
        borderColor: colour(c, m.stroke),
        borderWidth: 0.5 * k,
      });
      return;
    }
    case 'clip':
      page.pushOperators(
        lib.pushGraphicsState(),
        lib.rectangle(m.x * k, y(m.y + m.height), m.width * k, m.height * k),
        lib.clip(),
        lib.endPath(),
      );
      for (const inner of m.marks) await drawMark(c, inner);
      page.pushOperators(lib.popGraphicsState());
  }
}

function drawText(c: Page, m: TextMark): void {
  const font = m.bold ? c.fonts.bold : c.fonts.normal;
  const size = (m.size ?? c.fontPx) * c.k;
  const width = font.widthOfTextAtSize(m.text, size);
  const shift = m.anchor === 'middle' ? width / 2 : m.anchor === 'end' ? width : 0;
  const x = m.x * c.k;
  const y = c.height - m.y * c.k;
  c.page.drawText(m.text, {
    font,
    size,
    color: colour(c, m.fill),
    ...(m.turn ? { x, y: y - shift, rotate: c.lib.degrees(m.turn) } : { x: x - shift, y }),
  });
}

function colour(c: Page, v: Rgb): PdfLib.RGB {
  return c.lib.rgb(v[0], v[1], v[2]);
}

function tagOf(text: string): string {
  const hash = createHash('sha256').update(text).digest();
  return Array.from(hash.subarray(0, 6), (b) => String.fromCharCode(65 + (b % 26))).join('');
}
