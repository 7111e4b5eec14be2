/** Layout documents the rendering tests and goldens share. */

export const cell = (id: string, view: string, group: string, extra: Record<string, unknown> = {}) => ({
  type: 'window',
  id,
  view_direction: view,
  links: { selection: group },
  ...extra,
});

/** The 2x3 "modality grid" of the rendering reference (section 2.4). */
export const MODALITY_GRID = {
  version: '2.0',
  name: 'modality grid',
  groups: { ct: { select_all: true }, mr: { select_all: true } },
  root: {
    type: 'split',
    orientation: 'vertical',
    children: ['ct', 'mr'].map((g) => ({
      type: 'split',
      orientation: 'horizontal',
      size: 1,
      children: ['axial', 'coronal', 'sagittal'].map((v) =>
        cell(`mxn__${g}_${v}`, v, g, { name: `${g.toUpperCase()} ${v}`, size: 1 }),
      ),
    })),
  },
};
