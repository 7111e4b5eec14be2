import { WorkbenchApiError, WorkbenchUsageError } from './errors.js';
import { checkLayoutDocument, type LayoutDocument } from './layout.js';
import { editorDescriptor, editorInfo, Fields, parseJson, windowEntry } from './parse.js';
import { captureScreenshot } from './screenshot.js';
import type { CallOptions, Transport } from './transport.js';
import type {
  EditorAlias,
  EditorDescriptor,
  EditorInfo,
  Screenshot,
  ScreenshotOptions,
  WindowListEntry,
} from '../api/wire.js';
import { MxnCell, StdMultiWindow, type LayoutGeneration, type StdMultiWindowId } from './windows.js';

/** Plugin ids of the two built-in editors, for the info of an editor that is not open. */
export const PLUGIN_IDS: Record<EditorAlias, string> = {
  stdmulti: 'org.mitk.editors.stdmultiwidget',
  mxn: 'org.mitk.editors.mxnmultiwidget',
};

abstract class Editor {
  abstract readonly alias: EditorAlias;

  constructor(protected readonly t: Transport) {}

  protected get path(): string {
    return `/rendering/editors/${this.alias}`;
  }

  /** Editor info; an editor that is not open gives `active: false` and no windows instead of an error. */
  async info(call?: CallOptions): Promise<EditorInfo> {
    try {
      const reply = await this.t.send({ method: 'GET', path: this.path, call });
      return editorInfo(Fields.of(reply, parseJson(reply)));
    } catch (err) {
      if (err instanceof WorkbenchApiError && err.code === 'EDITOR_NOT_ACTIVE') {
        return { alias: this.alias, plugin_id: PLUGIN_IDS[this.alias], active: false, windows: [] };
      }
      throw err;
    }
  }

  /** The editor's windows in server order (MxN: pre-order of the layout). */
  async windows(call?: CallOptions): Promise<WindowListEntry[]> {
    const reply = await this.t.send({ method: 'GET', path: `${this.path}/windows`, call });
    const body = parseJson(reply);
    if (!Array.isArray(body)) throw Fields.of(reply, {}).fail('a window list should be an array');
    return body.map((w, i) => windowEntry(Fields.of(reply, w, `[${i}]`)));
  }

  /** The editor's canvas: all its windows, without toolbars or side panels. */
  async screenshot(opts?: ScreenshotOptions & CallOptions): Promise<Screenshot> {
    return captureScreenshot(this.t, `${this.path}/screenshot`, opts);
  }
}

/** The standard editor: fixed windows axial, sagittal, coronal (2D) and 3d. */
export class StdMultiEditor extends Editor {
  readonly alias = 'stdmulti';

  window(id: StdMultiWindowId): StdMultiWindow {
    return new StdMultiWindow(this.t, id);
  }

  get axial(): StdMultiWindow {
    return this.window('axial');
  }
  get sagittal(): StdMultiWindow {
    return this.window('sagittal');
  }
  get coronal(): StdMultiWindow {
    return this.window('coronal');
  }
  get threeD(): StdMultiWindow {
    return this.window('3d');
  }
}

/**
 * The MxN editor. Its cells come from a layout document; `generation` counts the layout
 * PUTs made through this client, and a cell handle from an earlier generation throws
 * STALE_WINDOW. A layout changed elsewhere (the GUI, another client) cannot be seen here.
 */
export class MxnEditor extends Editor {
  readonly alias = 'mxn';
  readonly #generation: LayoutGeneration = { value: 0 };

  get generation(): number {
    return this.#generation.value;
  }

  /** A handle on one cell (no request); the id is checked against the server's pattern. */
  window(id: string): MxnCell {
    return new MxnCell(this.t, id, this.#generation);
  }

  /** Handles on the current cells, in layout order. */
  async cells(call?: CallOptions): Promise<MxnCell[]> {
    return (await this.windows(call)).map((w) => this.window(w.id));
  }

  /** The live layout document, as the server serializes it (unknown keys kept). */
  async layout(call?: CallOptions): Promise<LayoutDocument> {
    const reply = await this.t.send({ method: 'GET', path: `${this.path}/layout`, call });
    return asLayout(parseJson(reply), () => Fields.of(reply, {}).fail('the layout answer is not a layout document'));
  }

  /**
   * Replaces the layout and returns the rebuilt one (sizes come back as live pixel sizes).
   * Every cell handle obtained before is stale afterwards, also when the server rejected the
   * document: some rejections happen after the old cells were torn down.
   */
  async setLayout(doc: LayoutDocument, call?: CallOptions): Promise<LayoutDocument> {
    checkLayoutDocument(doc);
    try {
      const reply = await this.t.send({ method: 'PUT', path: `${this.path}/layout`, json: doc, call });
      return asLayout(parseJson(reply), () => Fields.of(reply, {}).fail('the layout answer is not a layout document'));
    } finally {
      this.#generation.value += 1;
    }
  }
}

function asLayout(v: unknown, fail: () => Error): LayoutDocument {
  try {
    checkLayoutDocument(v);
  } catch (err) {
    if (err instanceof WorkbenchUsageError) throw fail();
    throw err;
  }
  return v;
}

/** Editor discovery plus the two editor handles. */
export class Editors {
  readonly stdmulti: StdMultiEditor;
  readonly mxn: MxnEditor;

  constructor(private readonly t: Transport) {
    this.stdmulti = new StdMultiEditor(t);
    this.mxn = new MxnEditor(t);
  }

  /** Both editors with whether each is open. */
  async list(call?: CallOptions): Promise<EditorDescriptor[]> {
    const reply = await this.t.send({ method: 'GET', path: '/rendering/editors', call });
    const body = parseJson(reply);
    if (!Array.isArray(body)) throw Fields.of(reply, {}).fail('the editor list should be an array');
    return body.map((e, i) => editorDescriptor(Fields.of(reply, e, `[${i}]`)));
  }

  get(alias: EditorAlias): StdMultiEditor | MxnEditor {
    if (alias === 'stdmulti') return this.stdmulti;
    if (alias === 'mxn') return this.mxn;
    throw new WorkbenchUsageError(
      'INVALID_ARGUMENT',
      `unknown editor '${String(alias)}'; the editors are stdmulti and mxn`,
    );
  }
}
