import { extname } from 'node:path';
import { showFile } from './describe.js';
import { object, ref } from './schema-defs.js';
import type { StepRunContext } from './run-context.js';
import type { StepCompileContext, StepDefinition } from './step-definition.js';
import type { WindowAddress } from './window-address.js';
import { capture } from './window-handle.js';

export const IMAGE_FORMATS = ['png', 'jpeg'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

export interface ScreenshotArgs {
  of: WindowAddress;
  save: string;
  format: ImageFormat;
  width?: number;
  height?: number;
}

export const screenshot: StepDefinition<'screenshot', ScreenshotArgs> = {
  kind: 'screenshot',
  summary: 'Capture a window, an editor or the application to an image file.',
  schema: object(
    {
      of: ref('window'),
      save: {
        description: 'Output path; use variables such as ${out} and ${study.name} so files never collide.',
        type: 'string',
        minLength: 1,
      },
      format: {
        description: 'Default: from the file extension (.jpg/.jpeg: jpeg), else png.',
        enum: [...IMAGE_FORMATS],
      },
      width: ref('size'),
      height: ref('size'),
    },
    ['of', 'save'],
  ),
  compile(raw, ctx) {
    const r = raw as { of: string; save: string; format?: ImageFormat; width?: number; height?: number };
    const of = ctx.window(r.of, ['of'], ['app', 'editor', 'window']) ?? { target: 'app', address: 'app' };
    const fromName = /^\.jpe?g$/i.test(extname(r.save)) ? 'jpeg' : 'png';
    if (r.format !== undefined && extname(r.save) !== '' && r.format !== fromName) {
      ctx.error(
        'FORMAT_MISMATCH',
        ['format'],
        `format \`${r.format}\` does not match the file name \`${showFile(r.save)}\``,
        `name the file with .${r.format === 'jpeg' ? 'jpg' : 'png'} or drop \`format\``,
      );
    }
    checkSize(r, ctx);
    return {
      of,
      save: ctx.outputFile(r.save, ['save']),
      format: r.format ?? fromName,
      ...(r.width !== undefined ? { width: r.width } : {}),
      ...(r.height !== undefined ? { height: r.height } : {}),
    };
  },
  async run(a, ctx) {
    // Loaded by a run, not by every command that reads a playbook.
    const stamping = import('../files/provenance.js');
    const shot = await capture(ctx.client, a.of, { format: a.format, ...captureSize(a), signal: ctx.signal });
    const provenance = await ctx.provenance();
    const { stampProvenance } = await stamping;
    // JPEG has no text chunks: its provenance lives in the report only.
    let bytes = a.format === 'png' ? stampProvenance(shot.bytes, provenance) : shot.bytes;
    if (a.format === 'png' && a.of.target === 'window') bytes = await withView(a.of, a, shot.bytes, bytes, ctx);
    // JPEG is not decoded here; its blocks rarely come out as one exact colour anyway.
    if (a.format === 'png') {
      const blank = await import('./blank-capture.js');
      const colour = blank.singleColour(await (await import('../image/png-decode.js')).decodePng(shot.bytes));
      if (colour !== undefined) ctx.notice(await blank.blankCaptureNotice(ctx.client, a.of, colour, ctx));
    }
    return { status: 'passed', artefacts: [{ ...(await ctx.writeOutput(a.save, bytes, 'screenshot')), provenance }] };
  },
  describe(a) {
    return `capture ${a.of.address}${a.width !== undefined ? ` at ${a.width}x${a.height}` : ''} to ${showFile(a.save)}`;
  },
};

/**
 * The capture with its window's camera, shape and slice as they were when it was taken, so a
 * figure made later from the file (`cohort_figure`) measures and annotates it rightly. A capture
 * at the window's own size gives the window's shape itself; a sized one needs a grab at that size.
 */
async function withView(
  window: Extract<WindowAddress, { target: 'window' }>,
  a: ScreenshotArgs,
  shot: Uint8Array,
  png: Uint8Array,
  ctx: StepRunContext,
): Promise<Uint8Array> {
  const [{ panelView, pngSize }, { captureView, viewEntries }, { addPngText }] = await Promise.all([
    import('./figure-views.js'),
    import('../figure/capture-view.js'),
    import('../image/png-text.js'),
  ]);
  const sized = a.width !== undefined && a.height !== undefined;
  const view = await panelView(window, ctx, sized ? undefined : shot);
  const { width, height } = pngSize(shot);
  return addPngText(png, viewEntries(captureView(view, width, height)));
}

/** The workbench takes a capture size as a pair or not at all. */
export function checkSize(r: { width?: number; height?: number }, ctx: StepCompileContext): void {
  if (r.width !== undefined && r.height === undefined)
    ctx.keyError(
      'WIDTH_HEIGHT',
      ['width'],
      '`width` is given without `height`',
      "give both width and height, or neither (the window's own size)",
    );
  if (r.height !== undefined && r.width === undefined)
    ctx.keyError(
      'WIDTH_HEIGHT',
      ['height'],
      '`height` is given without `width`',
      "give both width and height, or neither (the window's own size)",
    );
}

/** The capture size when the step gives one; the window's own size otherwise. */
export function captureSize(a: {
  width?: number;
  height?: number;
}): { width: number; height: number } | Record<string, never> {
  return a.width !== undefined && a.height !== undefined ? { width: a.width, height: a.height } : {};
}
