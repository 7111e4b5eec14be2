import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeImageBytes, type WritableFormat } from '../../../src/volume/write-image.js';
import { LABEL_DEFAULTS } from '../../../src/volume/segmentation.js';
import { segmentationVolume, IDENTITY, type Vec3, type Volume } from '../../../src/volume/volume.js';

/**
 * A small image whose voxel values count up, so each file differs from a blank one; with
 * `segmentation`, a MITK segmentation of one group whose label 1 covers every other voxel.
 */
export function smallVolume(
  options: { dims?: Vec3; segmentation?: boolean; spacing?: Vec3; frames?: number } = {},
): Volume {
  const dims = options.dims ?? [4, 3, 2];
  const n = dims[0] * dims[1] * dims[2];
  const frames = Array.from({ length: options.frames ?? 1 }, (_, t) =>
    Float32Array.from({ length: n }, (_, i) => (options.segmentation ? i % 2 : i * 37 - 200 + t)),
  );
  const values = frames.flatMap((f) => [...f]);
  const grid = {
    dims,
    spacing: options.spacing ?? ([1, 1, 2] as Vec3),
    origin: [0, 0, 0] as Vec3,
    direction: IDENTITY,
    timeStepMs: 100,
    timeOriginMs: 0,
  };
  if (options.segmentation) {
    const label = { ...LABEL_DEFAULTS, value: 1, name: 'Label 1', extra: {} };
    return segmentationVolume(grid, {
      groups: [{ name: '', labels: [label], extra: {}, frames }],
      unlabeledLock: false,
    });
  }
  return { ...grid, frames, componentType: 'int16', range: [Math.min(...values), Math.max(...values)] };
}

export function imageBytes(format: WritableFormat = 'nrrd', volume: Volume = smallVolume()): Uint8Array {
  return writeImageBytes(volume, format);
}

/** Writes a small image file into `dir` and returns its path. */
export async function writeImage(dir: string, name: string, volume: Volume = smallVolume()): Promise<string> {
  const format: WritableFormat = name.endsWith('.nii.gz')
    ? 'nii.gz'
    : name.endsWith('.nii')
      ? 'nii'
      : name.endsWith('.mha')
        ? 'mha'
        : 'nrrd';
  const path = join(dir, name);
  await writeFile(path, writeImageBytes(volume, format));
  return path;
}
