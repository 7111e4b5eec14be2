import type { Json } from './json-literals.js';

/**
 * A MITK multi-label segmentation: label groups, each an image of label values on the
 * segmentation's grid, and the labels those values stand for. Label values are unique across
 * all groups; 0 is the unlabelled background. Groups are layered in order, the first at the
 * bottom, so a voxel may carry a label in several groups at once (overlapping structures).
 */
export interface Segmentation {
  groups: LabelGroup[];
  /** Whether painting over unlabelled voxels is locked (MITK's `unlabeledlabellock`). */
  unlabeledLock: boolean;
}

export interface LabelGroup {
  /** The group's name; empty when the file gives none. */
  name: string;
  labels: Label[];
  /** Keys of the group's JSON other than `labels` and `name`, as written. */
  extra: Record<string, Json>;
  /** One frame of label values per time step, x fastest, then y, then z. */
  frames: Float32Array[];
}

export interface Label {
  /** The pixel value that carries this label, 1 to 65535. */
  value: number;
  name: string;
  /** 0..1 per channel. */
  color: [number, number, number];
  opacity: number;
  visible: boolean;
  locked: boolean;
  /** Keys of the label's JSON this workbench does not interpret (tracking ids, description, codes, custom properties), as written. */
  extra: Record<string, Json>;
}

/** Label values are unsigned short, as in MITK. */
export const MAX_LABEL_VALUE = 65535;

/** A new label's settings in MITK: opaque to 0.6, visible, locked, white, named so. */
export const LABEL_DEFAULTS: Omit<Label, 'value' | 'extra'> = {
  name: 'Unknown label name',
  color: [1, 1, 1],
  opacity: 0.6,
  visible: true,
  locked: true,
};

/** Every label of the segmentation by its value. */
export function labelsByValue(segmentation: Segmentation): Map<number, Label> {
  const out = new Map<number, Label>();
  for (const group of segmentation.groups) for (const label of group.labels) out.set(label.value, label);
  return out;
}
