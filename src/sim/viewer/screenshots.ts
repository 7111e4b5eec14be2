import * as softwareRenderer from '../render/index.js';
import type { RgbaImage, Rgb, View } from '../render/types.js';
import { layersFingerprint, layersFor } from './layers.js';
import { cellRects } from './splitter.js';
import { cellView, stdMultiView, type SceneState } from './views.js';
import type { DataStoreView } from '../datastore-types.js';
import type { Layout } from './layout.js';
import type { TimeNavigation } from './time.js';
import {
  MXN_CANVAS_SIZE,
  STDMULTI_SPLITTER,
  STDMULTI_WINDOW_SIZE,
  type Cell,
  type EditorAlias,
  type RenderWindow,
} from './windows.js';

export type ScreenshotTarget =
  | { kind: 'application' }
  | { kind: 'editor'; alias: EditorAlias }
  | { kind: 'window'; alias: EditorAlias; window: RenderWindow };

export interface ScreenshotParams {
  format: 'png' | 'jpeg';
  /** Both or neither: the grab is scaled to exactly this size, ignoring its aspect ratio. */
  width?: number;
  height?: number;
}

/** Colour of the splitters between windows and of an editor area with nothing in it. */
export const SPLITTER_COLOR: Rgb = [0.16, 0.16, 0.18];
export const APPLICATION_TITLE = 'MITK Workbench (wbplay reference)';

/** The renderer's entry points; tests pass a recording stand-in to check composition and caching. */
export type Renderer = Pick<
  typeof softwareRenderer,
  'renderView' | 'tileCanvas' | 'frameApplication' | 'resizeImage' | 'encodeImage'
>;

/** A drawing job: its fingerprint is known before any pixel is drawn, so a cache can skip it. */
interface Job {
  fingerprint: string;
  /** `into`: a buffer the picture may be drawn into, when the caller is done with it before the next draw. */
  draw(into?: Uint8Array): RgbaImage;
}

/** The cache is a convenience, not a store: it forgets everything beyond this many entries. */
const CACHE_LIMIT = 32;

/** What a grab reads of the viewer: its scene, windows, cells and layout. */
export interface CaptureScene extends SceneState {
  readonly store: DataStoreView;
  readonly time: TimeNavigation;
  isActive(alias: EditorAlias): boolean;
  cells(): Cell[];
  cell(id: string): Cell;
  currentLayout(): Layout;
}

/**
 * Grabs of render windows, editor canvases and the application window. Every image is drawn
 * from the current state by the pure renderer; the last encoded image of each target is kept
 * with the fingerprint of the state it shows, so asking twice for the same picture is cheap.
 */
export class Screenshots {
  private readonly cache = new Map<string, { fingerprint: string; bytes: Buffer }>();

  constructor(
    private readonly viewer: CaptureScene,
    private readonly renderer: Renderer = softwareRenderer,
  ) {}

  capture(target: ScreenshotTarget, params: ScreenshotParams): { bytes: Buffer; contentType: string } {
    const contentType = params.format === 'png' ? 'image/png' : 'image/jpeg';
    const job = this.job(target);
    const key =
      target.kind === 'window'
        ? `${target.alias}/${target.window.id}`
        : target.kind === 'editor'
          ? target.alias
          : 'application';
    const fingerprint = `${job.fingerprint}#${params.format}:${params.width ?? ''}x${params.height ?? ''}`;
    const cached = this.cache.get(key);
    if (cached?.fingerprint === fingerprint) return { bytes: cached.bytes, contentType };
    // A window's picture is encoded and dropped at once, so every grab of a size draws into one
    // buffer: the engine counts each new buffer against the heap's limit until its next full
    // collection, and a buffer per grab made it collect the whole heap every few grabs.
    let image = job.draw(target.kind === 'window' ? this.picture : undefined);
    if (target.kind === 'window') this.picture = image.data;
    if (params.width !== undefined && params.height !== undefined)
      image = this.renderer.resizeImage(image, params.width, params.height);
    // Window grabs come from the framebuffer (RGB); widget grabs of canvases carry alpha.
    const bytes = this.renderer.encodeImage(image, params.format, { alpha: target.kind !== 'window' });
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(key, { fingerprint, bytes });
    return { bytes, contentType };
  }

  /** The last window picture's pixels, drawn over by the next window grab of the same size. */
  private picture: Uint8Array = new Uint8Array(0);

  private job(target: ScreenshotTarget): Job {
    if (target.kind === 'window') return this.windowJob(target.alias, target.window);
    if (target.kind === 'editor') return this.editorJob(target.alias);
    const active = (['stdmulti', 'mxn'] as const).find((alias) => this.viewer.isActive(alias));
    const canvas = active
      ? this.editorJob(active)
      : this.emptyJob(
          STDMULTI_WINDOW_SIZE.width * 2 + STDMULTI_SPLITTER,
          STDMULTI_WINDOW_SIZE.height * 2 + STDMULTI_SPLITTER,
        );
    return {
      fingerprint: `app(${canvas.fingerprint})`,
      draw: () => this.renderer.frameApplication(canvas.draw(), APPLICATION_TITLE),
    };
  }

  private windowJob(alias: EditorAlias, win: RenderWindow): Job {
    const viewer = this.viewer;
    const view: View =
      alias === 'mxn' && win.kind === '2d' ? cellView(viewer, viewer.cell(win.id)) : stdMultiView(viewer, win);
    const layers = layersFor(viewer.store, win.contexts, viewer.time);
    return {
      fingerprint: `${JSON.stringify(view)}|${layersFingerprint(viewer.store, layers)}`,
      draw: (into) => this.renderer.renderView(view, layers, into),
    };
  }

  private editorJob(alias: EditorAlias): Job {
    const tiles: Array<{ x: number; y: number; job: Job }> = [];
    let width: number;
    let height: number;
    if (alias === 'stdmulti') {
      // MITK's standard display: axial | sagittal over coronal | 3D.
      const { width: w, height: h } = STDMULTI_WINDOW_SIZE;
      this.viewer.stdWindows().forEach((win, i) => {
        tiles.push({
          x: (i % 2) * (w + STDMULTI_SPLITTER),
          y: Math.floor(i / 2) * (h + STDMULTI_SPLITTER),
          job: this.windowJob('stdmulti', win),
        });
      });
      width = w * 2 + STDMULTI_SPLITTER;
      height = h * 2 + STDMULTI_SPLITTER;
    } else {
      ({ width, height } = MXN_CANVAS_SIZE);
      const rects = cellRects(this.viewer.currentLayout(), width, height);
      for (const cell of this.viewer.cells()) {
        const r = rects.get(cell.id)!;
        tiles.push({ x: r.x, y: r.y, job: this.windowJob('mxn', cell) });
      }
    }
    return {
      fingerprint: `${alias}[${tiles.map((t) => `${t.x},${t.y}:${t.job.fingerprint}`).join(';')}]`,
      draw: () =>
        this.renderer.tileCanvas(
          width,
          height,
          tiles.map((t) => ({ x: t.x, y: t.y, image: t.job.draw() })),
          SPLITTER_COLOR,
        ),
    };
  }

  /** With both editors closed the application shows an empty editor area. */
  private emptyJob(width: number, height: number): Job {
    return {
      fingerprint: `empty:${width}x${height}`,
      draw: () => this.renderer.tileCanvas(width, height, [], SPLITTER_COLOR),
    };
  }
}
