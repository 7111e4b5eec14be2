import type { DataStoreView } from '../datastore-types.js';
import { Problem } from '../problem.js';
import type { CameraState } from '../render/types.js';
import type { Vec3, Volume } from '../volume.js';
import { applyCameraPatch, cloneCamera, followSlice, reset2D, reset3D, standardView3D, type CameraPatch, type StandardView } from './camera.js';
import { isVisible } from './layers.js';
import { cellRects, defaultLayout, LayoutError, parseLayout, serializeLayout, windowsOf, type Layout } from './layout.js';
import {
  centre,
  clampStep,
  frameOf,
  hasGeometry,
  middleStep,
  navigationGeometry,
  planePosition,
  slabCentre,
  stepAt,
  stepCount,
  type NavigationGeometry,
} from './navigation.js';
import { Screenshots, type Renderer, type ScreenshotParams, type ScreenshotTarget } from './screenshots.js';
import { TimeNavigation, timeGeometry } from './time.js';
import { copy } from './vec.js';
import {
  EDITOR_ALIASES,
  EDITOR_CLASSES,
  MXN_CANVAS_SIZE,
  PLUGIN_IDS,
  RENDERER_NAMES,
  STDMULTI_IDS,
  STDMULTI_WINDOW_SIZE,
  type Cell,
  type EditorAlias,
  type RenderWindow,
  type StdMultiId,
  type Window2D,
} from './windows.js';

export type { EditorAlias } from './windows.js';

export interface ViewerOptions {
  /** Editors that start closed, so the EDITOR_NOT_ACTIVE paths are reachable. */
  inactive?: EditorAlias[];
  /** The software renderer by default; tests may record what would be drawn instead. */
  renderer?: Renderer;
}

export interface PositionBounds {
  min_position: Vec3 | null;
  max_position: Vec3 | null;
}

export interface SliceState {
  step: number;
  position: Vec3;
  bounds: PositionBounds & { steps: number };
}

/**
 * Editors, render windows, navigation and time of the reference workbench. Methods throw
 * `Problem`s for what the real workbench refuses; request parsing stays in the routes.
 */
export class Viewer {
  private readonly active: Record<EditorAlias, boolean>;
  private nav: NavigationGeometry | null = null;
  readonly time = new TimeNavigation();
  /** The StdMulti crosshair: the global selected position. */
  private crosshair: Vec3 = [0, 0, 0];
  private readonly std: Record<StdMultiId, RenderWindow>;
  private layout: Layout = defaultLayout();
  private cellsById = new Map<string, Cell>();
  private readonly screenshots: Screenshots;
  /** Counts update requests; the image itself is always drawn from the current state. */
  frame = 0;

  constructor(
    readonly store: DataStoreView,
    readonly options: ViewerOptions = {},
  ) {
    const inactive = new Set(options.inactive ?? []);
    this.active = { stdmulti: !inactive.has('stdmulti'), mxn: !inactive.has('mxn') };
    const size = STDMULTI_WINDOW_SIZE;
    const win2d = (id: 'axial' | 'sagittal' | 'coronal'): Window2D => ({
      kind: '2d',
      id,
      direction: id,
      contexts: [id, RENDERER_NAMES[id]],
      size,
      step: 0,
      camera: reset2D(id, null, 0, size),
    });
    this.std = {
      axial: win2d('axial'),
      sagittal: win2d('sagittal'),
      coronal: win2d('coronal'),
      '3d': { kind: '3d', id: '3d', contexts: ['3d', RENDERER_NAMES['3d']], size, camera: reset3D(null, size) },
    };
    this.setLayout(this.layout);
    this.screenshots = new Screenshots(this, options.renderer);
  }

  // ---- editors ---------------------------------------------------------------------------

  editors(): Array<{ alias: EditorAlias; plugin_id: string; active: boolean }> {
    return EDITOR_ALIASES.map((alias) => ({ active: this.active[alias], alias, plugin_id: PLUGIN_IDS[alias] }));
  }

  isActive(alias: EditorAlias): boolean {
    return this.active[alias];
  }

  requireActive(alias: EditorAlias): void {
    if (!this.active[alias]) throw new Problem('EDITOR_NOT_ACTIVE', `${EDITOR_CLASSES[alias]} is not open`);
  }

  /** Opens or closes an editor, as a user would in the workbench (tests and `--inactive`). */
  setActive(alias: EditorAlias, active: boolean): void {
    this.active[alias] = active;
  }

  editorInfo(alias: EditorAlias): { alias: EditorAlias; plugin_id: string; active: true; windows: string[] } {
    this.requireActive(alias);
    const windows = alias === 'stdmulti' ? [...STDMULTI_IDS] : this.cells().map((c) => c.id);
    return { active: true, alias, plugin_id: PLUGIN_IDS[alias], windows };
  }

  // ---- geometry and navigation -----------------------------------------------------------

  navigation(): NavigationGeometry | null {
    return this.nav;
  }

  bounds(): PositionBounds {
    return this.nav ? { max_position: copy(this.nav.bounds.max), min_position: copy(this.nav.bounds.min) } : { max_position: null, min_position: null };
  }

  /**
   * Fits every window to the visible data (no uids) or to the combined bounds of the given
   * nodes: slices centred, crosshair in the middle, cameras reset, time bounds renewed.
   */
  reinit(uids?: readonly string[]): void {
    let volumes: Volume[];
    if (uids === undefined) {
      volumes = this.store
        .nodes()
        .filter((n) => n.volume !== null && hasGeometry(n.volume) && isVisible(this.store, n))
        .map((n) => n.volume!);
    } else {
      const nodes = uids.map((uid) => {
        const node = this.store.get(uid);
        if (!node) throw new Problem('NODE_NOT_FOUND', `No node found with UID '${uid}'`);
        return node;
      });
      volumes = nodes.map((node) => {
        if (!node.volume) throw new Problem('NO_DATA', `Node '${node.uid}' has no data attached.`, { status: 422 });
        if (!hasGeometry(node.volume)) throw new Problem('NO_GEOMETRY', `Node '${node.uid}' has no usable time geometry.`);
        return node.volume;
      });
    }
    this.nav = navigationGeometry(volumes);
    this.time.reset(timeGeometry(volumes));
    this.crosshair = this.nav ? centre(this.nav.bounds) : [0, 0, 0];
    for (const win of this.stdWindows()) this.resetWindow(win);
    for (const cell of this.cells()) {
      this.resetWindow(cell);
      cell.position = copy(this.crosshair);
    }
  }

  private resetWindow(win: RenderWindow): void {
    if (win.kind === '3d') {
      win.camera = reset3D(this.nav, win.size);
      return;
    }
    win.step = middleStep(this.nav, win.direction);
    win.camera = reset2D(win.direction, this.nav, win.step, win.size);
  }

  selectedPosition(): { position: Vec3; bounds: PositionBounds } {
    this.requireActive('stdmulti');
    return { bounds: this.bounds(), position: copy(this.crosshair) };
  }

  /** Moves the StdMulti crosshair; each 2D window shows the slice nearest to it. */
  setSelectedPosition(position: Vec3): void {
    this.requireActive('stdmulti');
    this.crosshair = copy(position);
    for (const win of this.stdWindows()) {
      if (win.kind === '2d' && this.nav) this.moveToStep(win, stepAt(this.nav, win.direction, position[frameOf(win.direction).axis]));
    }
  }

  sliceState(win: Window2D): SliceState {
    return {
      bounds: { ...this.bounds(), steps: stepCount(this.nav, win.direction) },
      position: this.nav ? planePosition(this.nav, win.direction, win.step) : [0, 0, 0],
      step: win.step,
    };
  }

  /** Steps are clamped to the navigator's range, never refused; the crosshair follows. */
  setSlice(win: Window2D, step: number): void {
    this.moveToStep(win, clampStep(this.nav, win.direction, step));
    if (!this.nav) return;
    const axis = frameOf(win.direction).axis;
    const coordinate = slabCentre(this.nav, win.direction, win.step);
    if (this.cellsById.get(win.id) === win) (win as Cell).position[axis] = coordinate;
    else this.crosshair[axis] = coordinate;
  }

  private moveToStep(win: Window2D, step: number): void {
    win.step = step;
    if (this.nav) win.camera = followSlice(win.camera, frameOf(win.direction).axis, slabCentre(this.nav, win.direction, step));
  }

  cellPosition(cell: Cell): { position: Vec3; bounds: PositionBounds } {
    return { bounds: this.bounds(), position: copy(cell.position) };
  }

  /** A cell's navigator selects the slice through the point; the position snaps onto it. */
  setCellPosition(cell: Cell, position: Vec3): void {
    cell.position = copy(position);
    if (!this.nav) return;
    const axis = frameOf(cell.direction).axis;
    this.moveToStep(cell, stepAt(this.nav, cell.direction, position[axis]));
    cell.position[axis] = slabCentre(this.nav, cell.direction, cell.step);
  }

  // ---- cameras ---------------------------------------------------------------------------

  camera(win: RenderWindow): CameraState {
    return cloneCamera(win.camera);
  }

  /**
   * A standard view on the 3D window looks at the data from that side. A 2D window's camera
   * stays bound to its slice plane in MITK (the camera controller re-aligns it with the plane),
   * so there a standard view re-fits the window to its own plane: centred and zoomed to fit.
   */
  setCamera(win: RenderWindow, patch: CameraPatch): void {
    const standard = (view: StandardView): CameraState =>
      win.kind === '3d'
        ? standardView3D(view, this.nav, win.size, win.camera.perspective_angle ?? 30)
        : reset2D(win.direction, this.nav, win.step, win.size);
    win.camera = applyCameraPatch(win.camera, patch, standard);
  }

  // ---- windows ---------------------------------------------------------------------------

  stdWindow(id: StdMultiId): RenderWindow {
    return this.std[id];
  }

  stdWindows(): RenderWindow[] {
    return STDMULTI_IDS.map((id) => this.std[id]);
  }

  crosshairPosition(): Vec3 {
    return copy(this.crosshair);
  }

  cells(): Cell[] {
    return windowsOf(this.layout).map((w) => this.cellsById.get(w.id)!);
  }

  /** The cell with that id; an unknown (well-formed) id is 404. */
  cell(id: string): Cell {
    const cell = this.cellsById.get(id);
    if (!cell) throw new Problem('RENDER_WINDOW_NOT_FOUND', `No render window with id '${id}' in the addressed editor`);
    return cell;
  }

  currentLayout(): Layout {
    return this.layout;
  }

  layoutDocument(): Record<string, unknown> {
    return serializeLayout(this.layout, MXN_CANVAS_SIZE.width, MXN_CANVAS_SIZE.height);
  }

  /**
   * Replaces every cell. A document refused by the validation walk leaves the old cells; a
   * failure while building leaves the single default cell, as MITK's rollback does.
   */
  applyLayout(doc: unknown): Record<string, unknown> {
    let layout: Layout;
    try {
      layout = parseLayout(doc);
    } catch (e) {
      if (!(e instanceof LayoutError)) throw e;
      if (e.afterTeardown) this.setLayout(defaultLayout());
      throw new Problem('INVALID_REQUEST', `Layout document rejected: ${e.message}`);
    }
    this.setLayout(layout);
    return this.layoutDocument();
  }

  /** Builds fresh cells: new cameras and slices fitted to the current navigation geometry. */
  private setLayout(layout: Layout): void {
    this.layout = layout;
    const rects = cellRects(layout, MXN_CANVAS_SIZE.width, MXN_CANVAS_SIZE.height);
    this.cellsById = new Map();
    for (const w of windowsOf(layout)) {
      const rect = rects.get(w.id)!;
      const size = { width: rect.width, height: rect.height };
      const step = middleStep(this.nav, w.viewDirection);
      const cell: Cell = {
        kind: '2d',
        id: w.id,
        direction: w.viewDirection,
        contexts: [w.id],
        size,
        step,
        camera: reset2D(w.viewDirection, this.nav, step, size),
        group: w.group,
        position: this.nav ? centre(this.nav.bounds) : [0, 0, 0],
      };
      if (w.name !== undefined) cell.name = w.name;
      this.cellsById.set(w.id, cell);
    }
  }

  // ---- rendering -------------------------------------------------------------------------

  /** Requests a repaint; drawing is always from the current state, so only a counter moves. */
  update(_type: 'all' | '2d' | '3d'): void {
    this.frame++;
  }

  screenshot(target: ScreenshotTarget, params: ScreenshotParams): { bytes: Buffer; contentType: string } {
    return this.screenshots.capture(target, params);
  }
}
