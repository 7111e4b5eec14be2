import type { StepKind } from '../../src/steps/step-definition.js';

/**
 * One example per step kind for the playbook reference: the steps of a whole playbook that
 * runs on the demo study in `data/` (`wbplay demo-data data`). A step kind without an example
 * is a type error; the docs test runs every one on the reference workbench.
 */
export const STEP_EXAMPLES: Record<StepKind, string> = {
  load: `
  - load: { file: data/ct.nrrd, as: ct, name: CT }
  - load:
      file: data/tumour-label.nrrd
      as: tumour
      parent: ct
      opacity: 0.6`,
  set: `
  - load: { file: data/ct.nrrd, as: ct }
  - load: { file: data/mr.nii.gz, as: mr }
  - set: { node: mr, visible: false }
  - set: { node: ct, name: CT, opacity: 0.8, layer: 1 }`,
  hide_all: `
  - load: { file: data/ct.nrrd, as: ct }
  - load: { file: data/tumour-label.nrrd, as: tumour }
  - hide_all
  - set: { node: tumour, visible: true }`,
  remove: `
  - load: { file: data/ct.nrrd, as: ct }
  - load: { file: data/mr.nii.gz, as: mr }
  - remove: { node: mr }`,
  reinit: `
  - load: { file: data/ct.nrrd, as: ct }
  - load: { file: data/tumour-label.nrrd, as: tumour }
  - reinit: { nodes: [tumour] }   # fit the views to the tumour
  - reinit                        # fit them to everything visible`,
  update: `
  - load: { file: data/ct.nrrd, as: ct }
  - update: 2d`,
  position: `
  - load: { file: data/ct.nrrd, as: ct }
  - reinit: { nodes: [ct] }
  - position: [56, 52, 36]        # the crosshair, in world millimetres`,
  time: `
  - load: { file: data/perfusion-4d.nrrd, as: perfusion }
  - reinit: { nodes: [perfusion] }
  - time: { step: 2 }`,
  slice: `
  - load: { file: data/ct.nrrd, as: ct }
  - reinit: { nodes: [ct] }
  - slice: { window: stdmulti/axial, step: 16 }`,
  camera: `
  - load: { file: data/ct.nrrd, as: ct }
  - reinit: { nodes: [ct] }
  - camera: { window: stdmulti/3d, standard_view: anterior }
  - camera: { window: stdmulti/axial, parallel_scale: 40 }`,
  layout: `
  - load: { file: data/ct.nrrd, as: ct }
  - load: { file: data/mr.nii.gz, as: mr }
  - layout:
      rows:
        - { name: ct, nodes: [ct] }
        - { name: mr, nodes: [mr] }
      columns: [axial, coronal]
      at: [56, 52, 36]
  - screenshot: { of: mxn/mxn__mr_coronal, save: "\${out}/mr-coronal.png" }`,
  window_node: `
  - load: { file: data/ct.nrrd, as: ct }
  - load: { file: data/tumour-label.nrrd, as: tumour, parent: ct }
  - window_node: { window: stdmulti/3d, node: ct, visible: false }
  - window_node: { window: stdmulti/axial, node: tumour, layer: 10 }`,
  screenshot: `
  - load: { file: data/ct.nrrd, as: ct }
  - reinit: { nodes: [ct] }
  - screenshot: { of: stdmulti/axial, save: "\${out}/axial.png" }
  - screenshot: { of: stdmulti, save: "\${out}/all-four.jpg", width: 1024, height: 1024 }`,
  figure: `
  - load: { file: data/ct.nrrd, as: ct }
  - load: { file: data/tumour-label.nrrd, as: tumour, parent: ct }
  - layout:
      rows: [{ name: ct, nodes: [ct, tumour] }]
      columns: [axial, coronal]
      at: [56, 52, 36]
  - figure:
      save: \${out}/figure-1.png           # and figure-1.svg beside it
      width: 89mm
      column_headings: [Axial, Coronal]
      panels:
        - { window: mxn/mxn__ct_axial, scale_bar: 20 }
        - { window: mxn/mxn__ct_coronal }
      legend: { nodes: [tumour] }`,
  store: `
  - load: { file: data/ct.nrrd, as: ct }
  - reinit: { nodes: [ct] }
  - screenshot: { of: stdmulti/axial, save: "\${out}/axial.png" }
  # A case of foreach: dicom or dicomweb stores into its own study; any other names one.
  - store:
      dicomweb: http://127.0.0.1:8042/dicom-web
      images: ["\${out}/axial.png"]
      series_description: wbplay axial
      study: 2.25.242435883285962054099380529135386361356   # the demo tree's first study`,
  expect_image: `
  - load: { file: data/ct.nrrd, as: ct }
  - reinit: { nodes: [ct] }
  - expect_image:
      of: stdmulti/axial
      golden: goldens/axial.png        # written by the first run outside CI
      max_diff_ratio: 0.001
      masks: [{ x: 0, y: 0, width: 120, height: 20 }]`,
  expect_state: `
  - load: { file: data/ct.nrrd, as: ct, opacity: 0.5 }
  - reinit: { nodes: [ct] }
  - slice: { window: stdmulti/axial, step: 16 }
  - expect_state: { of: stdmulti/axial/slice, equals: { step: 16 } }
  - expect_state: { of: node:ct, equals: { opacity: 0.5 }, tolerance: 0.001 }`,
  wait: `
  - load: { file: data/ct.nrrd, as: ct }
  - wait: { ms: 250 }`,
  include: `
  - include: { file: show-ct.yaml, vars: { opacity: 0.5 } }
  - screenshot: { of: stdmulti/axial, save: "\${out}/axial.png" }`,
};

/** Files an example needs beside it, by name: shown under it in the reference. */
export const EXAMPLE_FILES: Partial<Record<StepKind, Record<string, string>>> = {
  include: {
    'show-ct.yaml': `version: 1
vars:
  opacity: 1
steps:
  - load: { file: data/ct.nrrd, as: ct, opacity: "\${opacity}" }
  - reinit: { nodes: [ct] }
`,
  },
};

/** A whole playbook around an example's steps. */
export function examplePlaybook(kind: StepKind): string {
  return `version: 1\nname: ${kind} example\nsteps:${STEP_EXAMPLES[kind]}\n`;
}
