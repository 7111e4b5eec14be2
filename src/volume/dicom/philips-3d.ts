import { basename } from 'node:path';
import type { DataSet } from 'dicom-parser';
import { IDENTITY, type Volume } from '../volume.js';
import { withLazyRange } from '../volume-builder.js';
import { parseBytes, readAll, us } from './data-set.js';
import type { DicomRead } from './dicom-read.js';
import { fail } from './errors.js';
import { UNCOMPRESSED } from './header.js';

/**
 * Whether MITK takes the file as Philips 3D ultrasound: its private creator (3001,0010) reads
 * "Philips3D " (`DicomSeriesReader::IsPhilips3DDicom`). `BaseDICOMReaderService::DoRead` asks
 * this of the given file before anything else, and such a file skips the series logic.
 */
export function isPhilips3D(ds: DataSet): boolean {
  const el = ds.elements['x30010010'];
  if (el === undefined || el.length === 0) return false;
  // The value is padded to an even length with a space: "Philips3D" is stored as "Philips3D ".
  return ds.text('x30010010')?.replace(/\0+$/, '').trimEnd() === 'Philips3D';
}

/**
 * A Philips 3D(+t) ultrasound file as MITK's legacy `DicomSeriesReader::ReadPhilips3DDicom`
 * reads it: an unsigned char image of Columns × Rows × (3001,1001) voxels and NumberOfFrames
 * time steps, spacing from PhysicalDeltaX/Y (0018,602C/602E) and (3001,1003) (×10 where the
 * unit (0018,6024/6026, 3001,1002) is 3, centimetres), origin 0 and identity directions. The
 * pixel data's bytes are taken one per voxel whatever BitsAllocated says, each time step's
 * planes in reverse order. The node is named after the file, extension included, and no other
 * property is set (`BaseDICOMReaderService::DoRead`).
 */
export async function readPhilips3D(file: string): Promise<DicomRead> {
  const { ds, transferSyntax } = parseBytes(await readAll(file), file);
  if (!UNCOMPRESSED.has(transferSyntax))
    fail(
      'UNSUPPORTED_TRANSFER_SYNTAX',
      file,
      `is Philips 3D ultrasound in transfer syntax ${transferSyntax}; MITK's reader for it decodes uncompressed pixel data only`,
    );
  const columns = us(ds, 'x00280011');
  const rows = us(ds, 'x00280010');
  const planes = ulong(ds, 'x30011001');
  const steps = Number((ds.string('x00280008') ?? '').trim());
  if (!columns || !rows || !planes || !(Number.isInteger(steps) && steps > 0))
    fail(
      'CORRUPT',
      file,
      `is Philips 3D ultrasound without its size: Columns ${columns ?? 'missing'}, Rows ${rows ?? 'missing'}, (3001,1001) ${planes ?? 'missing'}, NumberOfFrames ${Number.isNaN(steps) ? 'missing' : steps}`,
    );
  // MITK's reader has no fallback for a missing spacing (the attribute keeps 0, which no image
  // geometry accepts); say so rather than guess.
  const spacing = (
    [
      ['x0018602c', 'x00186024'],
      ['x0018602e', 'x00186026'],
      ['x30011003', 'x30011002'],
    ] as const
  ).map(([value, unit]) => {
    const mm = double(ds, value);
    if (mm === undefined || !(mm > 0))
      fail('CORRUPT', file, `is Philips 3D ultrasound without a spacing in (${value.slice(1, 5)},${value.slice(5)})`);
    return us(ds, unit) === 3 ? mm * 10 : mm;
  }) as [number, number, number];
  const pixels = ds.elements['x7fe00010'];
  const plane = columns * rows;
  const step = plane * planes;
  if (pixels === undefined || pixels.length === 0xffffffff) fail('CORRUPT', file, 'holds no native pixel data');
  if (pixels.length < step * steps)
    fail(
      'TRUNCATED',
      file,
      `holds ${pixels.length} bytes of pixel data, short of the ${step * steps} bytes of ${columns}x${rows}x${planes} voxels in ${steps} time steps`,
    );
  const bytes = ds.byteArray.subarray(pixels.dataOffset, pixels.dataOffset + step * steps);
  const frames: Float32Array[] = [];
  for (let t = 0; t < steps; t++) {
    const frame = new Float32Array(step);
    for (let z = 0; z < planes; z++)
      frame.set(bytes.subarray(t * step + (planes - 1 - z) * plane, t * step + (planes - z) * plane), z * plane);
    frames.push(frame);
  }
  const volume: Volume = withLazyRange({
    dims: [columns, rows, planes],
    spacing,
    origin: [0, 0, 0],
    direction: [...IDENTITY],
    frames,
    timeStepMs: 1,
    timeOriginMs: 0,
    componentType: 'uint8',
  });
  return { kind: 'image', volume, properties: { name: basename(file) }, files: [file], slices: planes };
}

function ulong(ds: DataSet, tag: string): number | undefined {
  const el = ds.elements[tag];
  return el === undefined || el.length < 4 ? undefined : ds.uint32(tag);
}

function double(ds: DataSet, tag: string): number | undefined {
  const el = ds.elements[tag];
  return el === undefined || el.length < 8 ? undefined : ds.double(tag);
}
