import type { Volume } from './volume.js';
import { MET_TYPES } from './metaimage.js';
import { encodeFrames, type ScalarType } from './scalar-types.js';
import { numberText, writableType } from './write-options.js';

const MET_NAMES = Object.fromEntries(
  Object.entries(MET_TYPES)
    .filter(([name]) => name !== 'MET_LONG' && name !== 'MET_ULONG')
    .map(([name, type]) => [type, name]),
) as Record<ScalarType, string>;

/**
 * A MetaImage with LOCAL (attached, uncompressed) data, in ITK's layout: `TransformMatrix` row i
 * is the direction of index axis i, `Offset` the first voxel's centre. A 3D+time volume is 4D
 * with the time step (ms) as its 4th spacing.
 */
export function writeMetaImage(volume: Volume): Uint8Array {
  const type = writableType(volume);
  const steps = volume.frames.length;
  const n = steps > 1 ? 4 : 3;
  const matrix: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) matrix.push(i < 3 && j < 3 ? volume.direction[j * 3 + i]! : i === j ? 1 : 0);
  }
  const list = (values: number[]): string => values.map(numberText).join(' ');
  const timed = <T>(spatial: T[], time: T): T[] => (n === 4 ? [...spatial, time] : spatial);
  const header = [
    'ObjectType = Image',
    `NDims = ${n}`,
    'BinaryData = True',
    'BinaryDataByteOrderMSB = False',
    'CompressedData = False',
    `TransformMatrix = ${list(matrix)}`,
    `Offset = ${list(timed([...volume.origin], volume.timeOriginMs))}`,
    `CenterOfRotation = ${list(new Array<number>(n).fill(0))}`,
    `ElementSpacing = ${list(timed([...volume.spacing], volume.timeStepMs))}`,
    `DimSize = ${timed([...volume.dims], steps).join(' ')}`,
    `ElementType = ${MET_NAMES[type]}`,
    'ElementDataFile = LOCAL',
  ];
  const head = new TextEncoder().encode(`${header.join('\n')}\n`);
  const data = encodeFrames(volume.frames, type);
  const out = new Uint8Array(head.length + data.length);
  out.set(head, 0);
  out.set(data, head.length);
  return out;
}
