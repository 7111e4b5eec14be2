import type { PropertyList, PropertyValue } from './datastore-types.js';
import { autoLevelWindowState, extremes } from './level-window.js';
import { grayscaleLookupTable, mitkLookupTable } from './lookup-table.js';
import type { Volume } from '../volume/volume.js';

/**
 * The properties MITK's image mapper gives a node when it gets image data
 * (`ImageVtkMapper2D::SetDefaultProperties`, reached from `DataNode::SetData`). Each is added
 * only when the node has none under its key, so values a client sent with the node stay,
 * except the lookup table, which MITK sets unconditionally to grey. A multi-label
 * segmentation has a mapper of its own and keeps only an opacity here.
 */
export function applyImageDefaults(list: PropertyList, volume: Volume, data: PropertyList = new Map()): void {
  // The mapper looks a key up on the node, falling back to the data (DICOM's level window).
  const add = (key: string, value: PropertyValue): void => {
    if (!list.has(key) && !data.has(key)) list.set(key, value);
  };
  const float = (value: number): PropertyValue => ({ type: 'FloatProperty', value });
  const bool = (value: boolean): PropertyValue => ({ type: 'BoolProperty', value });
  const color = (value: [number, number, number]): PropertyValue => ({ type: 'ColorProperty', value });
  if (volume.segmentation) {
    add('opacity', float(1));
    return;
  }
  add('depthOffset', float(0));
  add('outline binary', bool(false));
  add('outline width', float(1));
  add('outline binary shadow', bool(false));
  add('outline binary shadow color', color([0, 0, 0]));
  add('outline shadow width', float(1.5));
  add('reslice interpolation', {
    type: 'VtkResliceInterpolationProperty',
    value: isRotated(volume) ? 'Cubic' : 'Nearest',
  });
  add('texture interpolation', bool(false));
  add('in plane resample extent by geometry', bool(false));
  add('bounding box', bool(false));
  add('Image Rendering.Mode', { type: 'RenderingModeProperty', value: 'LookupTable_LevelWindow_Color' });
  // DICOM MONOCHROME1 (low values bright) gets the inverse grey table.
  const photometric = data.get('dicom.pixel.PhotometricInterpretation')?.value;
  if (typeof photometric === 'string' && photometric.includes('MONOCHROME1')) {
    list.set('LookupTable', { type: 'LookupTableProperty', value: mitkLookupTable('Inverse Grayscale') });
    list.set('Image Rendering.Mode', { type: 'RenderingModeProperty', value: 'LookupTable_LevelWindow_Color' });
  } else list.set('LookupTable', { type: 'LookupTableProperty', value: grayscaleLookupTable() });
  const own = list.get('binary');
  const binary = own?.type === 'BoolProperty' ? own.value === true : looksBinary(volume);
  if (binary) {
    add('opacity', float(0.3));
    add('color', color([1, 0, 0]));
    for (const key of ['selectedcolor', 'selectedannotationcolor', 'hoveringcolor', 'hoveringannotationcolor'])
      add(`binaryimage.${key}`, color([1, 0, 0]));
    add('binary', bool(true));
    add('layer', { type: 'IntProperty', value: 10 });
  } else {
    add('opacity', float(1));
    add('color', color([1, 1, 1]));
    add('binary', bool(false));
    add('layer', { type: 'IntProperty', value: 0 });
  }
  add('levelwindow', { type: 'LevelWindowProperty', value: autoLevelWindowState(volume) });
}

/**
 * `Image::IsRotated`: an off-diagonal element of the index-to-world matrix larger than a
 * thousandth of its trace. With a negative trace (two flipped axes) every matrix counts as
 * rotated, as in MITK; such an image gets cubic reslicing by default.
 */
export function isRotated(volume: Volume): boolean {
  const d = volume.direction;
  const m = (i: number, j: number): number => d[i * 3 + j]! * volume.spacing[j]!;
  const ref = (m(0, 0) + m(1, 1) + m(2, 2)) / 1000;
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) if (i !== j && Math.abs(m(i, j)) > ref) return true;
  return false;
}

/** MITK's `mitk::eps`. */
const EPS = 2.220446049250313e-14;

/**
 * MITK's guess that an image without a `binary` property is binary: every time step holds at
 * most two values, first checked on the central slice, then on the whole image. A uniform
 * image counts as binary, as in MITK.
 */
export function looksBinary(volume: Volume): boolean {
  const [nx, ny, nz] = volume.dims;
  const slice = nx * ny;
  const middle = volume.frames[Math.floor(volume.frames.length / 2)];
  if (middle === undefined) return false;
  const twoValued = (frame: Float32Array, start: number, length: number): boolean => {
    const e = extremes(frame, start, length);
    if (Math.abs(e.max - e.min) < EPS) return true;
    return Math.abs(e.max - e.min2nd) < EPS && Math.abs(e.max2nd - e.min) < EPS;
  };
  if (!twoValued(middle, Math.floor(nz / 2) * slice, slice)) return false;
  return volume.frames.every((f) => twoValued(f, 0, slice * nz));
}
