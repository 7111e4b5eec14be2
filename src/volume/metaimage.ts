import type { Vec3, Volume } from './volume.js';
import { inflate } from './compression.js';
import { finiteNumber, geometryFromAxes, positiveInteger, type ImageGeometry } from './image-geometry.js';
import { unreadable } from './image-read-error.js';
import { decodeFrames, decodeTextFrames, type ScalarType } from './scalar-types.js';
import { buildVolume, checkDataLength, checkGridSize, dataByteLength, type Grid } from './volume-builder.js';

/**
 * MetaImage (.mha/.mhd) reading, by hand: no maintained npm package reads it, and the header is
 * a short list of `Key = Value` lines ending at `ElementDataFile`.
 */
const WHERE = 'MetaImage header';

export const MET_TYPES: Record<string, ScalarType> = {
  MET_CHAR: 'int8',
  MET_UCHAR: 'uint8',
  MET_SHORT: 'int16',
  MET_USHORT: 'uint16',
  MET_INT: 'int32',
  MET_UINT: 'uint32',
  // MetaIO stores MET_LONG in 4 bytes on every platform.
  MET_LONG: 'int32',
  MET_ULONG: 'uint32',
  MET_LONG_LONG: 'int64',
  MET_ULONG_LONG: 'uint64',
  MET_FLOAT: 'float32',
  MET_DOUBLE: 'float64',
};

export interface MetaLayout {
  grid: Grid;
  geometry: ImageGeometry;
  timeStepMs: number;
  timeOriginMs: number;
  littleEndian: boolean;
  compressed: boolean;
  binary: boolean;
  /** `LOCAL`, or the data file's name as written in the header. */
  dataFile: string;
  /** Offset just past the `ElementDataFile` line: where LOCAL data starts. */
  dataOffset: number;
  headerSize: number;
}

export function readMetaLayout(bytes: Uint8Array): MetaLayout {
  const decoder = new TextDecoder('utf-8');
  const fields = new Map<string, string>();
  let at = 0;
  let dataOffset = -1;
  while (at < bytes.length) {
    const nl = bytes.indexOf(0x0a, at);
    const end = nl < 0 ? bytes.length : nl + 1;
    const line = decoder.decode(bytes.subarray(at, end)).trim();
    at = end;
    if (line === '') continue;
    const eq = line.indexOf('=');
    if (eq <= 0) unreadable(`${WHERE}: line '${line.slice(0, 60)}' is not 'Key = Value'`);
    const key = line.slice(0, eq).trim().toLowerCase();
    fields.set(key, line.slice(eq + 1).trim());
    if (key === 'elementdatafile') {
      dataOffset = at;
      break;
    }
    if (fields.size > 200) break;
  }
  if (dataOffset < 0) unreadable(`${WHERE}: missing 'ElementDataFile' (the header must end with it)`);
  const get = (key: string): string | undefined => fields.get(key.toLowerCase());
  const required = (key: string): string => get(key) ?? unreadable(`${WHERE}: missing '${key}'`);
  const numbers = (key: string, count: number): number[] | undefined => {
    const text = get(key);
    if (text === undefined) return undefined;
    const items = text.split(/\s+/).filter((s) => s.length > 0);
    if (items.length !== count) unreadable(`${WHERE}: '${key}' has ${items.length} values, expected ${count}`);
    return items.map((s, i) => finiteNumber(s, `${WHERE}: '${key}' value ${i}`));
  };
  const truth = (key: string): boolean => /^(true|1)$/i.test(get(key) ?? '');

  const objectType = get('ObjectType');
  if (objectType !== undefined && objectType.toLowerCase() !== 'image')
    unreadable(`${WHERE}: ObjectType is '${objectType}', not Image`);
  const ndims = positiveInteger(required('NDims'), `${WHERE}: 'NDims'`);
  if (ndims < 2 || ndims > 4) unreadable(`${WHERE}: NDims ${ndims} is not supported (2, 3 or 4)`);
  const channels = get('ElementNumberOfChannels');
  if (channels !== undefined && channels.trim() !== '1') {
    unreadable(`${WHERE}: ElementNumberOfChannels is ${channels}: only single-channel images are supported`);
  }
  const sizes = required('DimSize')
    .split(/\s+/)
    .filter((s) => s.length > 0)
    .map((s, i) => positiveInteger(s, `${WHERE}: 'DimSize' value ${i}`));
  if (sizes.length !== ndims) unreadable(`${WHERE}: 'DimSize' has ${sizes.length} values, NDims is ${ndims}`);
  const typeName = required('ElementType')
    .toUpperCase()
    .replace(/_ARRAY$/, '');
  const type = MET_TYPES[typeName] ?? unreadable(`${WHERE}: ElementType '${typeName}' is not supported`);
  const dims: Vec3 = [sizes[0]!, sizes[1]!, ndims >= 3 ? sizes[2]! : 1];
  const grid: Grid = { dims, timeSteps: ndims === 4 ? sizes[3]! : 1, type };
  checkGridSize(grid, WHERE);

  const spacing = numbers('ElementSpacing', ndims) ?? numbers('ElementSize', ndims) ?? new Array<number>(ndims).fill(1);
  const offset =
    numbers('Offset', ndims) ??
    numbers('Position', ndims) ??
    numbers('Origin', ndims) ??
    new Array<number>(ndims).fill(0);
  const matrix =
    numbers('TransformMatrix', ndims * ndims) ??
    numbers('Rotation', ndims * ndims) ??
    numbers('Orientation', ndims * ndims);
  // Row i of the matrix is the direction of index axis i (MetaIO's layout, as ITK reads it).
  const spatial = Math.min(ndims, 3);
  const axes = Array.from({ length: spatial }, (_, i): Vec3 => {
    const s = spacing[i]!;
    if (matrix === undefined) {
      const v: Vec3 = [0, 0, 0];
      v[i] = s;
      return v;
    }
    return [matrix[i * ndims]! * s, matrix[i * ndims + 1]! * s, ndims >= 3 ? matrix[i * ndims + 2]! * s : 0];
  });
  const geometry: ImageGeometry = {
    ...geometryFromAxes(axes, WHERE),
    origin: [offset[0]!, offset[1]!, ndims >= 3 ? offset[2]! : 0],
  };
  const msb = get('BinaryDataByteOrderMSB') ?? get('ElementByteOrderMSB');
  const headerSize = Number(get('HeaderSize') ?? '0');
  if (!Number.isInteger(headerSize) || headerSize < -1)
    unreadable(`${WHERE}: 'HeaderSize' must be -1 or a non-negative integer`);
  const dataFile = required('ElementDataFile');
  if (/^LIST\b/i.test(dataFile) || /%/.test(dataFile) || /\s\d+\s+\d+/.test(dataFile)) {
    unreadable(
      `${WHERE}: data split over several files ('ElementDataFile = ${dataFile.slice(0, 40)}') is not supported; save the image as one file`,
    );
  }
  const timeStep = ndims === 4 ? spacing[3]! : 1;
  return {
    grid,
    geometry,
    // MetaImage has no time unit; the 4th spacing and offset are read as milliseconds.
    timeStepMs: timeStep > 0 ? timeStep : 1,
    timeOriginMs: ndims === 4 ? offset[3]! : 0,
    littleEndian: !/^(true|1)$/i.test(msb ?? ''),
    compressed: truth('CompressedData'),
    binary: get('BinaryData') === undefined || truth('BinaryData'),
    dataFile,
    dataOffset,
    headerSize,
  };
}

export function isLocalData(layout: MetaLayout): boolean {
  return layout.dataFile.toUpperCase() === 'LOCAL';
}

/** Decodes the data: `source` is the data file, or the header file with LOCAL data after `start`. */
export function readMetaData(layout: MetaLayout, source: Uint8Array, start: number, what: string): Volume {
  const { grid } = layout;
  const voxels = grid.dims[0] * grid.dims[1] * grid.dims[2];
  let frames: Float32Array[];
  if (!layout.binary) {
    frames = decodeTextFrames(new TextDecoder().decode(source.subarray(start)), voxels, grid.timeSteps, what);
  } else {
    let data = source.subarray(start);
    const needed = dataByteLength(grid);
    let offset = layout.headerSize === -1 ? data.length - needed : layout.headerSize;
    if (layout.compressed) {
      data = inflate(data.subarray(Math.max(0, layout.headerSize)), what);
      offset = 0;
    }
    checkDataLength(data.length - offset, grid, what);
    frames = decodeFrames(data, offset, grid.type, layout.littleEndian, voxels, grid.timeSteps);
  }
  return buildVolume({ ...layout, frames });
}
