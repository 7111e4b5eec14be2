/** Hand-built NIfTI-1 and NIfTI-2 headers for tests, written field by field at the standard offsets. */
export interface NiftiFields {
  version?: 1 | 2;
  little?: boolean;
  dims: number[];
  datatype: number;
  bitpix: number;
  pixdim?: number[];
  sclSlope?: number;
  sclInter?: number;
  xyztUnits?: number;
  toffset?: number;
  qformCode?: number;
  sformCode?: number;
  quatern?: [number, number, number];
  qoffset?: [number, number, number];
  srow?: number[];
  intentCode?: number;
  magic?: string;
}

export function niftiBytes(f: NiftiFields, data: Uint8Array): Uint8Array {
  const version = f.version ?? 1;
  const little = f.little ?? true;
  const headerSize = version === 1 ? 348 : 540;
  const voxOffset = headerSize + 4;
  const out = new Uint8Array(voxOffset + data.length);
  const v = new DataView(out.buffer);
  const dims = [f.dims.length, ...f.dims, ...new Array<number>(7 - f.dims.length).fill(1)];
  const pixdim = f.pixdim ?? [1, 1, 1, 1, 0, 0, 0, 0];
  const text = (at: number, s: string): void => out.set(new TextEncoder().encode(s), at);
  const srow = f.srow ?? new Array<number>(12).fill(0);
  v.setInt32(0, headerSize, little);
  if (version === 1) {
    dims.forEach((d, i) => v.setInt16(40 + 2 * i, d, little));
    v.setInt16(68, f.intentCode ?? 0, little);
    v.setInt16(70, f.datatype, little);
    v.setInt16(72, f.bitpix, little);
    pixdim.forEach((p, i) => v.setFloat32(76 + 4 * i, p, little));
    v.setFloat32(108, voxOffset, little);
    v.setFloat32(112, f.sclSlope ?? 0, little);
    v.setFloat32(116, f.sclInter ?? 0, little);
    v.setUint8(123, f.xyztUnits ?? 0);
    v.setFloat32(136, f.toffset ?? 0, little);
    v.setInt16(252, f.qformCode ?? 0, little);
    v.setInt16(254, f.sformCode ?? 0, little);
    (f.quatern ?? [0, 0, 0]).forEach((q, i) => v.setFloat32(256 + 4 * i, q, little));
    (f.qoffset ?? [0, 0, 0]).forEach((q, i) => v.setFloat32(268 + 4 * i, q, little));
    srow.forEach((s, i) => v.setFloat32(280 + 4 * i, s, little));
    text(344, f.magic ?? 'n+1');
  } else {
    text(4, f.magic ?? 'n+2');
    out.set([0x0d, 0x0a, 0x1a, 0x0a], 8);
    v.setInt16(12, f.datatype, little);
    v.setInt16(14, f.bitpix, little);
    dims.forEach((d, i) => v.setBigInt64(16 + 8 * i, BigInt(d), little));
    pixdim.forEach((p, i) => v.setFloat64(104 + 8 * i, p, little));
    v.setBigInt64(168, BigInt(voxOffset), little);
    v.setFloat64(176, f.sclSlope ?? 0, little);
    v.setFloat64(184, f.sclInter ?? 0, little);
    v.setFloat64(216, f.toffset ?? 0, little);
    v.setInt32(344, f.qformCode ?? 0, little);
    v.setInt32(348, f.sformCode ?? 0, little);
    (f.quatern ?? [0, 0, 0]).forEach((q, i) => v.setFloat64(352 + 8 * i, q, little));
    (f.qoffset ?? [0, 0, 0]).forEach((q, i) => v.setFloat64(376 + 8 * i, q, little));
    srow.forEach((s, i) => v.setFloat64(400 + 8 * i, s, little));
    v.setInt32(500, f.xyztUnits ?? 0, little);
    v.setInt32(504, f.intentCode ?? 0, little);
  }
  out.set(data, voxOffset);
  return out;
}
