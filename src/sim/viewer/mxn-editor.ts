import { Problem } from '../problem.js';
import { reset2D } from './camera.js';
import { defaultLayout, LayoutError, parseLayout, windowsOf, type Layout } from './layout.js';
import { centre, middleStep, type NavigationGeometry } from './navigation.js';
import { cellRects, serializeLayout } from './splitter.js';
import { MXN_CANVAS_SIZE, type Cell, type RenderWindow } from './windows.js';

/** The MxN editor's cells and the layout they were built from. */
export class MxnEditor {
  private layout: Layout = defaultLayout();
  private cellsById = new Map<string, Cell>();

  constructor(private readonly navigation: () => NavigationGeometry | null) {
    this.build(this.layout);
  }

  current(): Layout {
    return this.layout;
  }

  /** The cells in document order. */
  cells(): Cell[] {
    return windowsOf(this.layout).map((w) => this.cellsById.get(w.id)!);
  }

  /** The cell with that id; an unknown (well-formed) id is 404. */
  cell(id: string): Cell {
    const cell = this.cellsById.get(id);
    if (!cell) throw new Problem('RENDER_WINDOW_NOT_FOUND', `No render window with id '${id}' in the addressed editor`);
    return cell;
  }

  owns(win: RenderWindow): win is Cell {
    return this.cellsById.get(win.id) === win;
  }

  document(): Record<string, unknown> {
    return serializeLayout(this.layout, MXN_CANVAS_SIZE.width, MXN_CANVAS_SIZE.height);
  }

  /**
   * Replaces every cell. A document refused by the validation walk leaves the old cells; a
   * failure while building leaves the single default cell, as MITK's rollback does.
   */
  apply(doc: unknown): Record<string, unknown> {
    let layout: Layout;
    try {
      layout = parseLayout(doc);
    } catch (e) {
      if (!(e instanceof LayoutError)) throw e;
      if (e.afterTeardown) this.build(defaultLayout());
      throw new Problem('INVALID_REQUEST', `Layout document rejected: ${e.message}`);
    }
    this.build(layout);
    return this.document();
  }

  /** Fresh cells: new cameras and slices fitted to the current navigation geometry. */
  private build(layout: Layout): void {
    this.layout = layout;
    const nav = this.navigation();
    const rects = cellRects(layout, MXN_CANVAS_SIZE.width, MXN_CANVAS_SIZE.height);
    this.cellsById = new Map();
    for (const w of windowsOf(layout)) {
      const rect = rects.get(w.id)!;
      const size = { width: rect.width, height: rect.height };
      const step = middleStep(nav, w.viewDirection);
      const cell: Cell = {
        kind: '2d',
        id: w.id,
        direction: w.viewDirection,
        contexts: [w.id],
        size,
        step,
        camera: reset2D(w.viewDirection, nav, step, size),
        group: w.group,
        position: nav ? centre(nav.bounds) : [0, 0, 0],
      };
      if (w.name !== undefined) cell.name = w.name;
      this.cellsById.set(w.id, cell);
    }
  }
}
