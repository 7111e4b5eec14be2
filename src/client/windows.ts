import { cameraBody } from './camera.js';
import { WorkbenchUsageError } from './errors.js';
import { nodePath } from './node-creation.js';
import {
  camera,
  Fields,
  mxnCellSummary,
  parseEnvelope,
  parseJson,
  selectedPosition,
  selectedSlice,
  windowSummary,
} from './parse.js';
import { patchResult, propPath, type PatchResult } from './properties.js';
import { positionBody } from './rendering.js';
import { captureScreenshot } from './screenshot.js';
import type { CallOptions, Reply, Transport } from './transport.js';
import type {
  Camera,
  CameraPatch,
  EditorAlias,
  MxnCellSummary,
  Screenshot,
  ScreenshotOptions,
  SelectedPosition,
  SelectedSlice,
  Vec3,
  WindowKind,
  WindowSummary,
} from '../api/wire.js';

export type StdMultiWindowId = 'axial' | 'sagittal' | 'coronal' | '3d';

/**
 * Renderer names of the standard editor's windows: the per-window property context, as the
 * interface document's example uses it (`stdmulti.widget0` for the axial window).
 */
export const STDMULTI_RENDERERS: Record<StdMultiWindowId, string> = {
  axial: 'stdmulti.widget0',
  sagittal: 'stdmulti.widget1',
  coronal: 'stdmulti.widget2',
  '3d': 'stdmulti.widget3',
};

/** Same pattern the server checks on MxN cell URLs: `<editor>__<bare id>`. */
export const MXN_CELL_ID = /^[A-Za-z][A-Za-z0-9.-]*__[A-Za-z0-9_.-]+$/;

/** A handle on one render window; it makes no request until used. */
export abstract class RenderWindow {
  abstract readonly kind: WindowKind;
  /** Property context of this window's renderer. */
  abstract readonly context: string;

  constructor(
    protected readonly t: Transport,
    readonly editor: EditorAlias,
    readonly id: string,
  ) {}

  protected get path(): string {
    return `/rendering/editors/${this.editor}/windows/${encodeURIComponent(this.id)}`;
  }

  /** Called before every request; MxN cells refuse when their layout was replaced. */
  protected check(): void {}

  protected async send(spec: Parameters<Transport['send']>[0]): Promise<Reply> {
    this.check();
    return this.t.send(spec);
  }

  get name(): string {
    return `${this.editor}/${this.id}`;
  }

  async summary(call?: CallOptions): Promise<WindowSummary> {
    const reply = await this.send({ method: 'GET', path: this.path, call });
    return windowSummary(Fields.of(reply, parseJson(reply)));
  }

  async camera(call?: CallOptions): Promise<Camera> {
    const reply = await this.send({ method: 'GET', path: `${this.path}/camera`, call });
    return camera(Fields.of(reply, parseJson(reply)));
  }

  /** Changes only the given fields; see `cameraBody` for what is refused before sending. */
  async setCamera(patch: CameraPatch, call?: CallOptions): Promise<void> {
    this.check();
    const body = cameraBody(patch, this.kind, this.name);
    await this.send({ method: 'PUT', path: `${this.path}/camera`, json: body, call });
  }

  async selectedSlice(call?: CallOptions): Promise<SelectedSlice> {
    this.#sliceApplies();
    const reply = await this.send({ method: 'GET', path: `${this.path}/selected-slice`, call });
    return selectedSlice(Fields.of(reply, parseJson(reply)));
  }

  /** The server clamps an out-of-range step instead of failing. */
  async setSelectedSlice(step: number, call?: CallOptions): Promise<void> {
    this.#sliceApplies();
    if (!Number.isInteger(step) || step < 0)
      throw new WorkbenchUsageError('INVALID_ARGUMENT', `${this.name}: a slice step is an integer >= 0, got ${step}`);
    await this.send({ method: 'PUT', path: `${this.path}/selected-slice`, json: { step }, call });
  }

  async screenshot(opts?: ScreenshotOptions & CallOptions): Promise<Screenshot> {
    this.check();
    return captureScreenshot(this.t, `${this.path}/screenshot`, opts);
  }

  /** Whether `uid` is visible in this window (node scope, this window's context). */
  async nodeVisible(uid: string, call?: CallOptions): Promise<boolean> {
    const v = await this.#readNodeProperty(uid, 'visible', call);
    if (typeof v.value !== 'boolean') throw v.fields.fail(`visible of node ${uid} in ${this.name} is not a boolean`);
    return v.value;
  }

  async setNodeVisible(uid: string, visible: boolean, call?: CallOptions): Promise<PatchResult> {
    if (typeof visible !== 'boolean')
      throw new WorkbenchUsageError('INVALID_ARGUMENT', `${this.name}: visible must be true or false`);
    return this.#writeNodeProperty(uid, { visible }, call);
  }

  /** Stack order of `uid` in this window (higher is drawn on top). */
  async nodeLayer(uid: string, call?: CallOptions): Promise<number> {
    const v = await this.#readNodeProperty(uid, 'layer', call);
    if (typeof v.value !== 'number' || !Number.isInteger(v.value))
      throw v.fields.fail(`layer of node ${uid} in ${this.name} is not an integer`);
    return v.value;
  }

  async setNodeLayer(uid: string, layer: number, call?: CallOptions): Promise<PatchResult> {
    if (!Number.isInteger(layer))
      throw new WorkbenchUsageError('INVALID_ARGUMENT', `${this.name}: a layer is an integer, got ${layer}`);
    return this.#writeNodeProperty(uid, { layer }, call);
  }

  // Node scope on read as well as write, so a data-scope property of the same name cannot shadow the per-window value.
  async #readNodeProperty(
    uid: string,
    key: string,
    call: CallOptions | undefined,
  ): Promise<{ value: unknown; fields: Fields }> {
    nodePath(uid);
    const reply = await this.send({
      method: 'GET',
      path: propPath(uid, key),
      query: [
        ['property_scope', 'node'],
        ['context', this.context],
      ],
      call,
    });
    const fields = Fields.of(reply, parseEnvelope(reply).data, 'data');
    return { value: fields.rec[key], fields };
  }

  async #writeNodeProperty(
    uid: string,
    values: Record<string, unknown>,
    call: CallOptions | undefined,
  ): Promise<PatchResult> {
    nodePath(uid);
    const reply = await this.send({
      method: 'PATCH',
      path: propPath(uid),
      query: [
        ['property_scope', 'node'],
        ['context', this.context],
      ],
      json: values,
      call,
    });
    return patchResult(reply, Object.keys(values));
  }

  #sliceApplies(): void {
    if (this.kind === '3d') {
      throw new WorkbenchUsageError(
        'NOT_APPLICABLE',
        `${this.name}: the 3D window has no selected slice; move the crosshair with the selected position instead`,
      );
    }
  }
}

export class StdMultiWindow extends RenderWindow {
  readonly kind: WindowKind;
  readonly context: string;

  constructor(t: Transport, id: StdMultiWindowId) {
    if (!(id in STDMULTI_RENDERERS)) {
      throw new WorkbenchUsageError(
        'INVALID_WINDOW_ID',
        `'${String(id)}' is not a window of the standard editor; use axial, sagittal, coronal or 3d`,
      );
    }
    super(t, 'stdmulti', id);
    this.kind = id === '3d' ? '3d' : '2d';
    this.context = STDMULTI_RENDERERS[id];
  }
}

/** Shared by an MxN editor handle and its cells: bumped by every layout PUT. */
export interface LayoutGeneration {
  value: number;
}

/**
 * A cell of the MxN editor. A layout PUT tears down and rebuilds every cell, so a handle
 * obtained before it no longer names the cell it meant (an id may even be reused for a
 * different cell); such a handle refuses every call with STALE_WINDOW. Get fresh handles
 * from the editor after a layout change.
 */
export class MxnCell extends RenderWindow {
  readonly kind: WindowKind = '2d';
  readonly context: string;
  readonly generation: number;

  constructor(
    t: Transport,
    id: string,
    private readonly layout: LayoutGeneration,
  ) {
    if (typeof id !== 'string' || !MXN_CELL_ID.test(id)) {
      throw new WorkbenchUsageError(
        'INVALID_WINDOW_ID',
        `'${String(id)}' is not an MxN cell id; cell ids look like mxn__widget0 (<editor>__<name>)`,
      );
    }
    super(t, 'mxn', id);
    this.context = id;
    this.generation = layout.value;
  }

  get stale(): boolean {
    return this.generation !== this.layout.value;
  }

  protected override check(): void {
    if (this.stale) {
      throw new WorkbenchUsageError(
        'STALE_WINDOW',
        `${this.name}: the MxN layout was replaced after this handle was obtained; get the cell again from the editor`,
      );
    }
  }

  override async summary(call?: CallOptions): Promise<MxnCellSummary> {
    const reply = await this.send({ method: 'GET', path: this.path, call });
    return mxnCellSummary(Fields.of(reply, parseJson(reply)));
  }

  async selectedPosition(call?: CallOptions): Promise<SelectedPosition> {
    const reply = await this.send({ method: 'GET', path: `${this.path}/selected-position`, call });
    return selectedPosition(Fields.of(reply, parseJson(reply)));
  }

  /** Selects the slice through `position` in this cell only. */
  async setSelectedPosition(position: Vec3, call?: CallOptions): Promise<void> {
    this.check();
    await this.send({
      method: 'PUT',
      path: `${this.path}/selected-position`,
      json: { position: positionBody(position) },
      call,
    });
  }
}
