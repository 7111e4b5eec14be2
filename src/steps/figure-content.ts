import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { WorkbenchClient } from '../client/index.js';
import type { LegendEntry } from '../figure/compose.js';
import { segmentationLabels } from '../figure/segmentation-labels.js';
import type { FigurePanel, ScaleBar } from '../figure/svg.js';
import type { Rgb } from '../image/rgba.js';
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
    return { bytes: shot.bytes, mime: 'image/png' };
  }
  const file = p.image ?? '';
  return { bytes: await readFile(file), mime: /^\.jpe?g$/i.test(extname(file)) ? 'image/jpeg' : 'image/png' };
}

/**
 * A 2D window's camera is orthographic: `parallel_scale` is half the height of the view in
 * millimetres, so a capture `height` pixels high shows 2·parallel_scale/height mm per pixel.
 */
export async function scaleBar(
  window: Window,
  bar: { mm: number; color: Rgb },
  height: number,
  ctx: StepRunContext,
): Promise<ScaleBar | undefined> {
  const camera = await windowHandle(ctx.client, window).camera({ signal: ctx.signal });
  const scale = camera.parallel_scale;
  if (scale === null || !(scale > 0)) return undefined;
  const mmPerPixel = (2 * scale) / height;
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
