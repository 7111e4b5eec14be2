import { gzipSync } from 'node:zlib';

/**
 * MITK multi-label segmentation files written out byte by byte from the format's facts, not
 * by this repository's writer: a NRRD header with `modality:=org.mitk.multilabel.segmentation`,
 * the label groups as JSON under `org.mitk.multilabel.segmentation.labelgroups`, unsigned short
 * little-endian label values; with several groups a first axis of kind `vector` (space
 * direction `none`) holding one value per group and voxel.
 */
export interface SegmentationFile {
  /** x, y, z sizes; spacing 1 mm, identity directions, origin 0. */
  sizes: [number, number, number];
  /** Label value of group g at voxel (i, j, k). */
  value: (g: number, i: number, j: number, k: number) => number;
  /** The label-group JSON text, as it stands in the header. */
  groupsJson: string;
  groups: number;
  encoding?: 'raw' | 'gzip';
  /** Extra header lines (e.g. another version). */
  extraLines?: string[];
  type?: string;
  /** Bytes per sample for `type` (2 for unsigned short). */
  bytes?: 1 | 2 | 4;
}

export function segmentationNrrd(file: SegmentationFile): Uint8Array {
  const [nx, ny, nz] = file.sizes;
  const vector = file.groups > 1;
  const lines = [
    'NRRD0004',
    '# Complete NRRD file format specification at:',
    '# http://teem.sourceforge.net/nrrd/format.html',
    `type: ${file.type ?? 'unsigned short'}`,
    `dimension: ${vector ? 4 : 3}`,
    'space: left-posterior-superior',
    `sizes: ${vector ? `${file.groups} ` : ''}${nx} ${ny} ${nz}`,
    `space directions: ${vector ? 'none ' : ''}(1,0,0) (0,1,0) (0,0,1)`,
    `kinds: ${vector ? 'vector ' : ''}domain domain domain`,
    'endian: little',
    `encoding: ${file.encoding ?? 'raw'}`,
    'space origin: (0,0,0)',
    'modality:=org.mitk.multilabel.segmentation',
    `org.mitk.multilabel.segmentation.labelgroups:=${file.groupsJson}`,
    'org.mitk.multilabel.segmentation.unlabeledlabellock:=0',
    ...(file.extraLines ?? ['org.mitk.multilabel.segmentation.version:=1']),
  ];
  const size = file.bytes ?? 2;
  const data = new Uint8Array(nx * ny * nz * file.groups * size);
  const view = new DataView(data.buffer);
  let at = 0;
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      for (let i = 0; i < nx; i++) {
        for (let g = 0; g < file.groups; g++, at += size) {
          const v = file.value(g, i, j, k);
          if (size === 1) view.setUint8(at, v);
          else if (size === 2) view.setUint16(at, v, true);
          else view.setUint32(at, v, true);
        }
      }
    }
  }
  const header = new TextEncoder().encode(`${lines.join('\n')}\n\n`);
  const body = file.encoding === 'gzip' ? gzipSync(data) : data;
  const out = new Uint8Array(header.length + body.length);
  out.set(header, 0);
  out.set(body, header.length);
  return out;
}

/**
 * Two groups on a 20x20x4 grid, as a user would lay out anatomy and findings: group 0 holds
 * label 1 "Liver" (red, opaque) left of x = 12 and label 2 "Spleen" (0..255 colour) right of it;
 * group 1 holds label 3 "Tumor" (blue, half opaque) for x from 8 to 15, overlapping both.
 * Unknown keys (a tracking id, a DICOM code, a group property) ride along.
 */
export const TWO_GROUPS_JSON =
  '[{"custom_group_key":1.5,"labels":[{"color":[1.0,0.0,0.0],"locked":false,"name":"Liver","opacity":1.0,"value":1,"visible":true},' +
  '{"anatomic_region.[0].meaning":"Spleen","color":[0,255,0],"name":"Spleen","opacity":1.0,"tracking_id":"7","value":2,"visible":true}],"name":"Anatomy"},' +
  '{"labels":[{"color":{"type":"ColorProperty","value":[0.0,0.0,1.0]},"name":"Tumor","opacity":0.5,"value":3}],"name":"Findings"}]';

export function twoGroupValue(g: number, i: number): number {
  if (g === 0) return i < 12 ? 1 : 2;
  return i >= 8 && i < 16 ? 3 : 0;
}
