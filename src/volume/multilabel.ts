import { MAX_LABEL_VALUE, type LabelGroup, type Segmentation } from './segmentation.js';
import { unreadable } from './image-read-error.js';
import { readLabelGroups, writeLabelGroups, type GroupInfo } from './label-groups.js';

/**
 * MITK's multi-label segmentation in NRRD: the `modality` key marks it, the label groups travel
 * as JSON in a header key, and the pixels are unsigned short label values. One group is a plain
 * scalar image; several groups are a vector image whose first axis (kind `vector`) is the group
 * axis, so each voxel holds one value per group. Only the header decides: an image without the
 * marker is an image, whatever its values.
 */
export const MITK_MULTILABEL_MODALITY = 'org.mitk.multilabel.segmentation';
export const MULTILABEL_VERSION_KEY = `${MITK_MULTILABEL_MODALITY}.version`;
export const MULTILABEL_GROUPS_KEY = `${MITK_MULTILABEL_MODALITY}.labelgroups`;
export const MULTILABEL_LOCK_KEY = `${MITK_MULTILABEL_MODALITY}.unlabeledlabellock`;
/** The newest format version MITK writes and reads. */
export const MULTILABEL_VERSION = 1;

const WHERE = 'MITK segmentation';

/** What a segmentation's header says, before its pixels are read. */
export interface MultilabelHeader {
  groups: GroupInfo[];
  unlabeledLock: boolean;
}

/** The segmentation keys of a NRRD header, or undefined when the file is not a MITK segmentation. */
export function readMultilabelHeader(keyValues: ReadonlyMap<string, string>): MultilabelHeader | undefined {
  if (keyValues.get('modality') !== MITK_MULTILABEL_MODALITY) return undefined;
  const version = Number.parseInt(keyValues.get(MULTILABEL_VERSION_KEY) ?? '0', 10);
  if (version > MULTILABEL_VERSION) {
    unreadable(
      `${WHERE}: format version ${version} is newer than this workbench reads (up to ${MULTILABEL_VERSION}); save it with a compatible MITK or in another format`,
    );
  }
  const json = keyValues.get(MULTILABEL_GROUPS_KEY);
  if (json === undefined)
    unreadable(`${WHERE}: the header has no '${MULTILABEL_GROUPS_KEY}' key with the label groups`);
  const lock = Number.parseInt(keyValues.get(MULTILABEL_LOCK_KEY) ?? '0', 10);
  return { groups: readLabelGroups(json), unlabeledLock: Number.isFinite(lock) && lock !== 0 };
}

/**
 * Copies interleaved values (`layers` per voxel) into one array per layer. Returns the position
 * of the first value that is not a label value, or -1. Its own function so the engine optimises
 * the loop once, not anew for every file (see render/view-3d.ts).
 */
function splitLayers(frame: Float32Array, split: Float32Array[], voxels: number, layers: number): number {
  for (let v = 0, at = 0; v < voxels; v++) {
    for (let g = 0; g < layers; g++, at++) {
      const value = frame[at]!;
      if (!(value >= 0 && value <= MAX_LABEL_VALUE && Number.isInteger(value))) return at;
      split[g]![v] = value;
    }
  }
  return -1;
}

/**
 * Splits decoded pixels into label groups: `frames` holds one frame per time step with
 * `layers` values per voxel, interleaved. The file must carry one label group per layer; a
 * single layer with no groups at all is an empty segmentation, allowed only when no voxel is
 * labelled. Values must be label values: whole numbers from 0 to 65535.
 */
export function assembleSegmentation(
  header: MultilabelHeader,
  frames: readonly Float32Array[],
  layers: number,
  voxels: number,
): Segmentation {
  let infos = header.groups;
  if (infos.length === 0 && layers === 1) infos = [{ name: '', labels: [], extra: {} }];
  if (infos.length !== layers)
    unreadable(
      `${WHERE}: the image has ${layers} group layer(s) but the header describes ${infos.length} label group(s)`,
    );
  const groups: LabelGroup[] = infos.map((info) => ({ ...info, frames: [] }));
  for (const frame of frames) {
    // One layer is its own group: checked in place rather than copied.
    const split = layers === 1 ? [frame] : groups.map(() => new Float32Array(voxels));
    const bad = splitLayers(frame, split, voxels, layers);
    if (bad >= 0) {
      unreadable(
        `${WHERE}: voxel ${Math.floor(bad / layers)} of group ${bad % layers} holds ${frame[bad]}, not a label value (a whole number from 0 to ${MAX_LABEL_VALUE})`,
      );
    }
    split.forEach((f, g) => groups[g]!.frames.push(f));
  }
  if (header.groups.length === 0 && groups[0]!.frames.some((f) => f.some((v) => v !== 0))) {
    unreadable(`${WHERE}: voxels carry label values but the header describes no labels`);
  }
  return { groups, unlabeledLock: header.unlabeledLock };
}

/** The header keys MITK writes for a segmentation, in the sorted order its writer uses. */
export function multilabelHeaderLines(segmentation: Segmentation): string[] {
  return [
    `modality:=${MITK_MULTILABEL_MODALITY}`,
    `${MULTILABEL_GROUPS_KEY}:=${writeLabelGroups(segmentation.groups)}`,
    `${MULTILABEL_LOCK_KEY}:=${segmentation.unlabeledLock ? 1 : 0}`,
    `${MULTILABEL_VERSION_KEY}:=${MULTILABEL_VERSION}`,
  ];
}

/** One frame per time step with the groups' values interleaved per voxel, as the file stores them. */
export function interleaveGroups(segmentation: Segmentation): Float32Array[] {
  const groups = segmentation.groups;
  const steps = groups[0]?.frames.length ?? 0;
  const out: Float32Array[] = [];
  for (let t = 0; t < steps; t++) {
    const parts = groups.map((g) => g.frames[t]!);
    if (parts.length === 1) {
      out.push(parts[0]!);
      continue;
    }
    const voxels = parts[0]!.length;
    const frame = new Float32Array(voxels * parts.length);
    for (let v = 0, at = 0; v < voxels; v++) for (const part of parts) frame[at++] = part[v]!;
    out.push(frame);
  }
  return out;
}
