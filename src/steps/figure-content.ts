import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { WorkbenchClient } from '../client/index.js';
import type { ColourBar } from '../figure/colour-bar.js';
import type { LegendEntry } from '../figure/compose.js';
import { segmentationLabels } from '../figure/segmentation-labels.js';
import type { FigurePanel, ScaleBar } from '../figure/svg.js';
import type { Rgb } from '../image/rgba.js';
import { decodePng } from '../image/png-decode.js';
import { propertyValue } from './property-value.js';
import type { StepRunContext } from './run-context.js';
import type { WindowAddress } from './window-address.js';
import { capture, windowHandle } from './window-handle.js';

/* What a figure step asks the workbench for: its panels' pixels, cameras and legend colours. */

type Window = Extract<WindowAddress, { target: 'window' }>;

export async function panelImage(
  p: { window?: Window; image?: string },
  width: number,
  height: number,
  ctx: StepRunContext,
): Promise<Pick<FigurePanel, 'bytes' | 'mime'>> {
  if (p.window) {
    const shot = await capture(ctx.client, p.window, { format: 'png', width, height, signal: ctx.signal });
    const blank = await import('./blank-capture.js');
    const colour = blank.singleColour(await decodePng(shot.bytes));
    if (colour !== undefined) ctx.notice(await blank.blankCaptureNotice(ctx.client, p.window, colour, ctx));
    return { bytes: shot.bytes, mime: 'image/png' };
  }
  const file = p.image ?? '';
  return { bytes: await readFile(file), mime: /^\.jpe?g$/i.test(extname(file)) ? 'image/jpeg' : 'image/png' };
}

/**
 * A 2D window's camera is orthographic: `parallel_scale` is half the height of the view in
 * millimetres, so a capture `height` pixels high shows 2·parallel_scale/height mm per pixel
 * down. Across, the window's shape counts: the grab is scaled to the panel whatever the
 * window's shape, so a panel `width` pixels wide shows 2·parallel_scale·aspect/width mm per
 * pixel, and a scale bar (drawn across) is measured with that.
 */
export async function scaleBar(
  window: Window,
  bar: { mm: number; color: Rgb },
  panel: { width: number; height: number; aspect: number },
  ctx: StepRunContext,
): Promise<ScaleBar | undefined> {
  const camera = await windowHandle(ctx.client, window).camera({ signal: ctx.signal });
  const scale = camera.parallel_scale;
  if (scale === null || !(scale > 0)) return undefined;
  const mmPerPixel = (2 * scale * panel.aspect) / panel.width;
  return { length: Math.round(bar.mm / mmPerPixel), label: `${bar.mm} mm`, color: bar.color };
}

/** A node as legend entries: a segmentation's visible labels, or the node's name in its colour. */
export async function legendOfNode(
  client: WorkbenchClient,
  uid: string,
  call: { signal: AbortSignal },
): Promise<LegendEntry[]> {
  const node = await client.nodes.get(uid, call);
  if (node.data_type === 'MultiLabelSegmentation' || node.data_type === 'LabelSetImage') {
    const data = await client.nodes.getData(uid, call);
    const bytes = data.mode === 'direct' ? data.bytes : await readFile(data.file_path);
    return segmentationLabels(bytes);
  }
  const color = propertyValue(await client.properties.get(uid, 'color', call));
  const rgb: Rgb =
    Array.isArray(color) && color.length >= 3 && color.every((c) => typeof c === 'number')
      ? [color[0] as number, color[1] as number, color[2] as number]
      : [1, 1, 1];
  return [{ name: node.name, color: rgb }];
}

/** Entries a colour bar shows at most: MITK's tables have 256, a multi-label one 65536. */
const MAX_BAR_COLOURS = 256;

/**
 * A node's colour scale as a window draws it: its lookup table, tinted by its colour, from the
 * low to the high bound of its level window (or of the table's own range when the rendering
 * mode leaves the level window out). A binary image has none: MITK draws it in one colour.
 */
export async function colourBarOfNode(
  client: WorkbenchClient,
  uid: string,
  bar: { label?: string; window?: Window },
  call: { signal: AbortSignal },
): Promise<ColourBar> {
  const opts = { ...call, ...(bar.window ? { context: windowHandle(client, bar.window).context } : {}) };
  const [node, own] = await Promise.all([
    client.nodes.get(uid, call),
    client.properties.list(uid, { names: ['binary', 'color'], ...call }),
  ]);
  if (own.binary === true) {
    throw Object.assign(
      new Error(`node ${uid} (${node.name}) is a binary image: MITK draws it in its colour, so it has no colour scale`),
      { code: 'NOT_APPLICABLE' },
    );
  }
  const [{ colours, mode }, lw] = await Promise.all([
    client.display.colormap(uid, opts),
    client.display.levelWindow(uid, opts),
  ]);
  const tint = propertyValue(own.color);
  const [tr, tg, tb] = Array.isArray(tint) && tint.length === 3 ? (tint as number[]) : [1, 1, 1];
  const step = Math.max(1, colours.table.length / MAX_BAR_COLOURS);
  const picked: Array<[number, number, number, number]> = [];
  for (let i = 0; i < colours.table.length; i += step) {
    const [r, g, b, a] = colours.table[Math.floor(i)]!;
    picked.push([r * tr!, g * tg!, b * tb!, a]);
  }
  const [low, high] =
    mode === 'LookupTable_Color' ? colours.range : [lw.level - lw.window / 2, lw.level + lw.window / 2];
  return { label: bar.label ?? node.name, colours: picked, low, high };
}
