import type { PositionBounds } from '../../api/wire.js';
import type { DataStoreView } from '../datastore-types.js';
import { Problem } from '../problem.js';
import type { CameraState } from '../render/types.js';
import type { Vec3, Volume } from '../../volume/volume.js';
import {
  applyCameraPatch,
  cloneCamera,
  followSlice,
  reset2D,
  reset3D,
  standardView3D,
  type CameraPatch,
  type StandardView,
} from './camera.js';
import { isVisible } from './layers.js';
import type { Layout } from './layout.js';
import { MxnEditor } from './mxn-editor.js';
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
  PLUGIN_IDS,
  STDMULTI_IDS,
  stdMultiWindows,
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
  private readonly mxn = new MxnEditor(() => this.nav);
  private readonly screenshots: Screenshots;
  /** Counts update requests; the image itself is always drawn from the current state. */
  frame = 0;

  constructor(
    readonly store: DataStoreView,
    readonly options: ViewerOptions = {},
  ) {
    const inactive = new Set(options.inactive ?? []);
    this.active = { stdmulti: !inactive.has('stdmulti'), mxn: !inactive.has('mxn') };
    this.std = stdMultiWindows();
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
    return this.nav
      ? { max_position: copy(this.nav.bounds.max), min_position: copy(this.nav.bounds.min) }
      : { max_position: null, min_position: null };
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
        if (!hasGeometry(node.volume))
          throw new Problem('NO_GEOMETRY', `Node '${node.uid}' has no usable time geometry.`);
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
      if (win.kind !== '2d' || !this.nav) continue;
      const step = stepAt(this.nav, win.direction, position[frameOf(win.direction).axis]);
      if (step !== null) this.moveToStep(win, step);
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
    if (this.mxn.owns(win)) win.position[axis] = coordinate;
    else this.crosshair[axis] = coordinate;
  }

  private moveToStep(win: Window2D, step: number): void {
    win.step = step;
    if (this.nav)
      win.camera = followSlice(win.camera, frameOf(win.direction).axis, slabCentre(this.nav, win.direction, step));
  }

  cellPosition(cell: Cell): { position: Vec3; bounds: PositionBounds } {
    return { bounds: this.bounds(), position: copy(cell.position) };
  }

  /** A cell's navigator selects the slice through the point; the position snaps onto it. */
  setCellPosition(cell: Cell, position: Vec3): void {
    cell.position = copy(position);
    if (!this.nav) return;
    const axis = frameOf(cell.direction).axis;
    const step = stepAt(this.nav, cell.direction, position[axis]);
    if (step !== null) this.moveToStep(cell, step);
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
    return this.mxn.cells();
  }

  cell(id: string): Cell {
    return this.mxn.cell(id);
  }

  currentLayout(): Layout {
    return this.mxn.current();
  }

  layoutDocument(): Record<string, unknown> {
    return this.mxn.document();
  }

  applyLayout(doc: unknown): Record<string, unknown> {
    return this.mxn.apply(doc);
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
