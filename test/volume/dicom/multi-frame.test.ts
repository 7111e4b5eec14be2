import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import dicomParser from 'dicom-parser';
import { readDicom } from '../../../src/volume/dicom/index.js';
import { scanDicomFolder } from '../../../src/volume/dicom/scan.js';
import { matchesWhere } from '../../../src/volume/dicom/where.js';
import { readImageFile } from '../../../src/volume/read-image.js';
import { indexToWorld, type Volume } from '../../../src/volume/volume.js';
import { withTempDir } from '../../helpers/workbench.js';
import { parseGdcmInfo, writeEnhanced, type EnhancedSpec } from './enhanced.js';
import { needs, referenceParts } from './reference-tools.js';
import { axial, writeSeries, type SynthSlice } from './synthetic.js';

/**
 * Enhanced multi-frame objects read as MITK reads one alone, through GDCM: each file is made
 * from a single-frame series and held to `gdcminfo` (GDCM's origin, spacing, directions and
 * rescale), to `gdcmconv --raw` (its voxels) and, where it reads them, to dcm2niix.
 */

interface Made {
  dir: string;
  file: string;
  series: string;
  python: string;
}

async function withEnhanced(
  t: TestContext,
  tools: string[],
  slices: SynthSlice[],
  spec: Omit<EnhancedSpec, 'sources' | 'out'> & { order?: 'ascending' | 'descending' },
  fn: (made: Made) => Promise<void>,
): Promise<void> {
  const parts = referenceParts(tools);
  if (!needs(t, parts.missing)) return;
  await withTempDir(async (dir) => {
    const series = join(dir, 'series');
    execFileSync('mkdir', ['-p', series]);
    writeSeries(parts.python!, series, slices);
    const sources = slices.map((s) => join(series, s.name));
    if (spec.order === 'descending') sources.reverse();
    const file = join(dir, 'enhanced.dcm');
    const { order: _order, ...rest } = spec;
    writeEnhanced(parts.python!, { ...rest, sources, out: file });
    await fn({ dir, file, series, python: parts.python! });
  });
}

const close = (a: readonly number[], b: readonly number[], tolerance: number, what: string): void => {
  assert.equal(a.length, b.length, what);
  // gdcminfo prints 6 significant digits: half a unit of the last one on top of the tolerance.
  a.forEach((v, i) =>
    assert.ok(
      Math.abs(v - b[i]!) <= tolerance + Math.abs(b[i]!) * 5e-6,
      `${what}: ${a.join(',')} against ${b.join(',')}`,
    ),
  );
};

const normalOf = (c: readonly number[]): number[] => {
  const n = [c[1]! * c[5]! - c[2]! * c[4]!, c[2]! * c[3]! - c[0]! * c[5]!, c[0]! * c[4]! - c[1]! * c[3]!];
  const l = Math.hypot(n[0]!, n[1]!, n[2]!);
  return n.map((v) => v / l);
};

/** The volume's geometry against what gdcminfo prints (6 significant digits), after ITK's flip of a negative z. */
function assertGdcmGeometry(volume: Volume, file: string): ReturnType<typeof parseGdcmInfo> {
  const info = parseGdcmInfo(execFileSync('gdcminfo', [file], { encoding: 'utf8' }));
  assert.deepEqual(volume.dims, info.dimensions);
  close(volume.origin, info.origin, 1e-4, 'origin');
  close(volume.spacing, info.spacing.map(Math.abs), 1e-4, 'spacing');
  const d = volume.direction;
  close([d[0], d[3], d[6]], info.cosines.slice(0, 3), 1e-4, 'row direction');
  close([d[1], d[4], d[7]], info.cosines.slice(3, 6), 1e-4, 'column direction');
  const sign = Math.sign(info.spacing[2]!);
  close(
    [d[2], d[5], d[8]],
    normalOf(info.cosines).map((v) => v * sign),
    1e-4,
    'slice direction',
  );
  return info;
}

/** GDCM's stored samples (`gdcmconv --raw`), rescaled by what gdcminfo says. */
function assertGdcmVoxels(volume: Volume, file: string, dir: string, info: ReturnType<typeof parseGdcmInfo>): void {
  const out = join(dir, 'raw.dcm');
  execFileSync('gdcmconv', ['--raw', file, out], { stdio: 'ignore' });
  const bytes = readFileSync(out);
  const ds = dicomParser.parseDicom(bytes);
  const px = ds.elements.x7fe00010!;
  const samples = new Int16Array(new Uint8Array(bytes.subarray(px.dataOffset, px.dataOffset + px.length)).buffer);
  const frame = volume.frames[0]!;
  assert.equal(frame.length, samples.length);
  for (let i = 0; i < samples.length; i++)
    assert.equal(frame[i], samples[i]! * info.slope + info.intercept, `voxel ${i}`);
}

/** dcm2niix's NIfTI holds the same value at each voxel's world position (LPS, as wbplay's volumes). */
async function assertDcm2niix(volume: Volume, file: string, dir: string): Promise<void> {
  const out = join(dir, 'nii');
  execFileSync('mkdir', ['-p', out]);
  execFileSync('dcm2niix', ['-o', out, '-f', 'converted', '-z', 'n', '-s', 'y', file], { stdio: 'ignore' });
  const name = readdirSync(out).find((n) => n.endsWith('.nii'));
  assert.ok(name, 'dcm2niix wrote a NIfTI');
  const nifti = await readImageFile(join(out, name));
  const [nx, ny, nz] = volume.dims;
  for (const [i, j, k] of [
    [0, 0, 0],
    [nx - 1, 0, 0],
    [0, ny - 1, nz - 1],
    [nx - 1, ny - 1, 1],
  ] as const) {
    const p = indexToWorld(volume, i, j, k);
    const value = volume.frames[0]![i + nx * (j + ny * k)]!;
    const m = worldIndex(nifti, p);
    assert.ok(m !== undefined, `world point ${p.join(',')} inside dcm2niix's volume`);
    // dcm2niix keeps stored values and writes the rescale in the header.
    assert.equal(nifti.frames[0]![m], value, `voxel ${i},${j},${k} at ${p.join(',')}`);
  }
}

function worldIndex(v: Volume, p: readonly number[]): number | undefined {
  // Solve p = origin + D·diag(s)·ijk for ijk (D orthonormal: its transpose is its inverse).
  const d = v.direction;
  const q = [p[0]! - v.origin[0], p[1]! - v.origin[1], p[2]! - v.origin[2]];
  const ijk = [0, 1, 2].map((c) => (d[c]! * q[0]! + d[3 + c]! * q[1]! + d[6 + c]! * q[2]!) / v.spacing[c]!);
  const r = ijk.map((x) => Math.round(x));
  if (ijk.some((x, c) => Math.abs(x - r[c]!) > 1e-3 || r[c]! < 0 || r[c]! >= v.dims[c]!)) return undefined;
  return r[0]! + v.dims[0] * (r[1]! + v.dims[1] * r[2]!);
}

const CT = { intercept: -1024, slope: 1 };
const oblique = (): SynthSlice[] => {
  // Rows along (cos 30°, sin 30°, 0), columns along z: a tilted coronal-ish stack.
  const c = Math.cos(Math.PI / 6);
  const s = Math.sin(Math.PI / 6);
  const o: [number, number, number, number, number, number] = [c, s, 0, 0, 0, -1];
  return Array.from({ length: 5 }, (_, i) => ({
    name: `o${i}`,
    position: [3 + 2 * -s * i, -4 + 2 * c * i, 20] as [number, number, number],
    orientation: o,
    instance: i + 1,
    value: 100 * (i + 1),
    ...CT,
  }));
};
const sagittal = (): SynthSlice[] =>
  Array.from({ length: 4 }, (_, i) => ({
    name: `g${i}`,
    position: [-10 + 1.5 * i, 30, 40] as [number, number, number],
    orientation: [0, 1, 0, 0, 0, -1] as [number, number, number, number, number, number],
    instance: i + 1,
    value: 50 * (i + 1),
    ...CT,
  }));

for (const [label, slices, spec] of [
  ['axial, shared groups', axial(5, CT), { rescale: 'shared' }],
  ['oblique, orientation per frame', oblique(), { rescale: 'shared', perFrameOrientation: true }],
  ['sagittal, Legacy Converted Enhanced CT', sagittal(), { rescale: 'shared', sop: 'legacy-ct' }],
  ['axial, frames stored in descending order', axial(5, CT), { rescale: 'shared', order: 'descending' }],
] as const) {
  test(`enhanced CT ${label}: geometry as gdcminfo, voxels as gdcmconv --raw, positions as dcm2niix`, async (t) => {
    await withEnhanced(t, ['gdcminfo', 'gdcmconv', 'dcm2niix'], [...slices], { ...spec }, async ({ dir, file }) => {
      const [read] = await readDicom(file);
      const volume = read!.volume!;
      const info = assertGdcmGeometry(volume, file);
      assert.deepEqual([info.intercept, info.slope], [-1024, 1]);
      // GDCM's Rescaler: 16 bits stored, signed, intercept −1024: int32.
      assert.equal(volume.componentType, 'int32');
      assertGdcmVoxels(volume, file, dir, info);
      await assertDcm2niix(volume, file, dir);
    });
  });
}

test('frames stored against the normal: origin at the first stored frame, z flipped (ITK makes the negative GDCM spacing positive)', async (t) => {
  await withEnhanced(t, [], axial(4, CT), { rescale: 'shared', order: 'descending' }, async ({ file }) => {
    const volume = (await readDicom(file))[0]!.volume!;
    assert.deepEqual(volume.origin, [-5, -7, 16]);
    assert.deepEqual(volume.spacing, [0.75, 0.5, 2]);
    assert.deepEqual([volume.direction[2], volume.direction[5], volume.direction[8]], [-0, -0, -1]);
    // The first stored frame is the top one (value 400 at its first voxel).
    assert.equal(volume.frames[0]![0], 400 - 1024);
  });
});

test('a per-frame rescale that differs between frames: GDCM applies the first frame’s to every frame', async (t) => {
  const rescale: Array<[number, number]> = [
    [-1024, 1],
    [0, 2],
    [10, 1],
  ];
  await withEnhanced(t, ['gdcminfo', 'gdcmconv'], axial(3), { rescale }, async ({ dir, file }) => {
    const volume = (await readDicom(file))[0]!.volume!;
    const info = assertGdcmGeometry(volume, file);
    assert.deepEqual([info.intercept, info.slope], [-1024, 1]);
    assertGdcmVoxels(volume, file, dir, info);
    const plane = volume.dims[0] * volume.dims[1];
    // Frame 2's stored 200 stays 200 − 1024, not 2·200.
    assert.equal(volume.frames[0]![plane], 200 - 1024);
    assert.equal(volume.componentType, 'int32');
  });
});

test('an enhanced MR with no Pixel Value Transformation keeps its stored type and values', async (t) => {
  await withEnhanced(t, ['gdcminfo'], axial(3, { modality: 'MR' }), { sop: 'mr' }, async ({ file }) => {
    const volume = (await readDicom(file))[0]!.volume!;
    const info = assertGdcmGeometry(volume, file);
    assert.deepEqual([info.intercept, info.slope], [0, 1]);
    assert.equal(volume.componentType, 'int16');
    assert.equal(volume.frames[0]![0], 100);
  });
});

test('level window: MITK takes WindowCenter/Width from the top level only, never from the Frame VOI LUT', async (t) => {
  await withEnhanced(t, [], axial(3, CT), { rescale: 'shared', voi: [40, 400] }, async ({ file }) => {
    const read = (await readDicom(file))[0]!;
    assert.equal(read.properties!.levelwindow, undefined);
    assert.equal(read.properties!['DICOM.0028.1050'], undefined);
  });
  await withEnhanced(
    t,
    [],
    axial(3, CT),
    { rescale: 'shared', voi: [40, 400], topLevelWindow: [50, 350] },
    async ({ file }) => {
      const lw = (await readDicom(file))[0]!.properties!.levelwindow as { value: { CurrentSettings: unknown } };
      assert.deepEqual(lw.value.CurrentSettings, { Level: 50, Window: 350 });
    },
  );
});

test('name, DICOM.* and reader properties as for any DICOM; the spacing is unknown to MITK (no top-level PixelSpacing)', async (t) => {
  const slices = axial(3, { ...CT, studyDescription: 'Thorax', seriesDescription: 'Enhanced' });
  await withEnhanced(t, [], slices, { rescale: 'shared' }, async ({ file }) => {
    const read = (await readDicom(file))[0]!;
    const p = read.properties!;
    assert.equal(p.name, 'Thorax / Enhanced');
    assert.deepEqual(p['DICOM.0008.103E'], {
      type: 'TemporoSpatialStringProperty',
      value: { values: [{ z: 0, t: 0, value: 'Enhanced' }] },
    });
    assert.deepEqual(p['DICOM.0008.0060'], {
      type: 'TemporoSpatialStringProperty',
      value: { values: [{ z: 0, t: 0, value: 'CT' }] },
    });
    assert.equal(p['MITK.IO.reader.DICOM.PixelSpacingInterpretation'], 'SpacingUnknown');
    assert.equal(read.slices, 3);
  });
});

test('the scanner and `where:` see an enhanced object as one series of one file', async (t) => {
  const slices = axial(4, { ...CT, seriesDescription: 'Enhanced' });
  await withEnhanced(t, [], slices, { rescale: 'shared' }, async ({ dir, file, series }) => {
    execFileSync('rm', ['-r', series]);
    const scan = scanDicomFolder(dir, { recursive: false });
    assert.equal(scan.series.length, 1);
    assert.equal(scan.series[0]!.path, file);
    assert.equal(scan.series[0]!.files, 1);
    assert.equal(scan.series[0]!.keywords.Modality, 'CT');
    // `where:` reads the same top-level keywords.
    assert.ok(matchesWhere(scan.series[0]!.keywords, { Modality: 'CT', SeriesDescription: 'Enhanced' }));
    assert.ok(!matchesWhere(scan.series[0]!.keywords, { Modality: 'MR' }));
  });
});

for (const name of ['rtdose.dcm', 'rtdose_expb.dcm', 'rtdose_rle.dcm', 'SC_rgb_rle_2frame.dcm']) {
  test(`${name} (pydicom's multi-frame test file): geometry as gdcminfo`, async (t) => {
    const parts = referenceParts(['gdcminfo']);
    if (!needs(t, parts.missing)) return;
    const file = join(parts.files!, name);
    const volume = (await readDicom(file, { onlyFile: true }))[0]!.volume!;
    assertGdcmGeometry(volume, file);
  });
}

test('a large enhanced file (decoded by the thread pool in ranges of frames) holds the very volume its 64 single-frame files give', async (t) => {
  // 256 × 256 × 64 voxels: the size from which a block is decoded on the pool.
  const slices = axial(64, { ...CT, rows: 256, columns: 256, gap: 1.25 });
  await withEnhanced(t, [], slices, { rescale: 'shared' }, async ({ file, series }) => {
    const one = (await readDicom(file))[0]!.volume!;
    const many = (await readDicom(series))[0]!.volume!;
    assert.deepEqual(one.dims, many.dims);
    assert.deepEqual(one.origin, many.origin);
    close(one.spacing, many.spacing, 1e-9, 'spacing');
    close(one.direction, many.direction, 1e-12, 'direction');
    assert.equal(one.componentType, many.componentType);
    assert.deepEqual(one.range, many.range);
    assert.ok(Buffer.from(one.frames[0]!.buffer).equals(Buffer.from(many.frames[0]!.buffer)), 'the same voxels');
    // Cut short, the range that ends past the file says so, naming it.
    execFileSync('truncate', ['-s', '-70000', file]);
    await assert.rejects(readDicom(file), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'TRUNCATED');
      assert.match(err.message, /enhanced\.dcm.*truncated/);
      return true;
    });
  });
});

/** Classic multi-frame objects, each with the attributes its class takes its geometry from. */
const CLASSIC = String.raw`
import sys, os
import numpy as np
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.sequence import Sequence
from pydicom.uid import ExplicitVRLittleEndian
from pydicom.tag import Tag
out = sys.argv[1]
def write(name, sop, frames, extra):
    meta = FileMetaDataset(); meta.MediaStorageSOPClassUID = sop
    meta.MediaStorageSOPInstanceUID = '1.2.826.0.1.3680043.8.498.90.' + str(len(name))
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = Dataset(); ds.file_meta = meta; ds.preamble = b'\0' * 128
    ds.is_little_endian = True; ds.is_implicit_VR = False
    ds.SOPClassUID = sop; ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.PatientID = 'MF'; ds.StudyInstanceUID = '1.2.826.0.1.3680043.8.498.90'
    ds.SeriesInstanceUID = meta.MediaStorageSOPInstanceUID + '.1'
    ds.NumberOfFrames = frames; ds.Rows = 4; ds.Columns = 3
    ds.SamplesPerPixel = 1; ds.PhotometricInterpretation = 'MONOCHROME2'
    ds.BitsAllocated = 16; ds.BitsStored = 12; ds.HighBit = 11; ds.PixelRepresentation = 0
    extra(ds)
    ds.PixelData = np.arange(frames * 12, dtype='<u2').tobytes()
    try:
        ds.save_as(os.path.join(out, name), enforce_file_format=True)
    except TypeError:
        ds.save_as(os.path.join(out, name), write_like_original=False)
def mr(ds):
    ds.Modality = 'MR'; ds.ImagePositionPatient = ['10', '-20', '30']
    ds.ImageOrientationPatient = ['0', '1', '0', '0', '0', '-1']
    ds.PixelSpacing = ['0.8', '0.6']; ds.SliceThickness = '2'; ds.SpacingBetweenSlices = '3.5'
def ct(ds):
    ds.Modality = 'CT'; ds.ImagePositionPatient = ['1', '2', '3']
    ds.ImageOrientationPatient = ['1', '0', '0', '0', '1', '0']
    ds.PixelSpacing = ['0.5', '0.5']; ds.SliceThickness = '5'; ds.SpacingBetweenSlices = '5'
def xa(ds):
    ds.Modality = 'XA'; ds.ImagerPixelSpacing = ['0.3', '0.2']
    ds.FrameIncrementPointer = Tag(0x0018, 0x1063); ds.FrameTime = '33.3'
def nm(ds):
    ds.Modality = 'NM'; ds.PixelSpacing = ['4', '4']; ds.SpacingBetweenSlices = '4.5'
    d = Dataset(); d.ImagePositionPatient = ['-100', '-110', '50']
    d.ImageOrientationPatient = ['1', '0', '0', '0', '0', '-1']
    ds.DetectorInformationSequence = Sequence([d])
write('mr', '1.2.840.10008.5.1.4.1.1.4', 3, mr)
write('ct', '1.2.840.10008.5.1.4.1.1.2', 3, ct)
write('xa', '1.2.840.10008.5.1.4.1.1.12.1', 4, xa)
write('nm', '1.2.840.10008.5.1.4.1.1.20', 3, nm)
`;

for (const [name, what, z] of [
  ['mr', 'multi-frame MR: z from SpacingBetweenSlices, not SliceThickness', 3.5],
  ['ct', 'multi-frame CT: no z tag and no Frame Increment Pointer, z 1', 1],
  ['xa', 'XA cine: ImagerPixelSpacing in-plane, z the Frame Time', 33.3],
  ['nm', 'NM: origin and directions from the Detector Information, z from SpacingBetweenSlices', 4.5],
] as const) {
  test(`${what} (as gdcminfo)`, async (t) => {
    const parts = referenceParts(['gdcminfo']);
    if (!needs(t, parts.missing)) return;
    await withTempDir(async (dir) => {
      execFileSync(parts.python!, ['-c', CLASSIC, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
      const file = join(dir, name);
      const volume = (await readDicom(file))[0]!.volume!;
      assertGdcmGeometry(volume, file);
      assert.equal(volume.spacing[2], z);
      assert.equal(volume.frames[0]![13], 13);
    });
  });
}

test('unequal gaps between frames: GDCM gives up on the spacing (1, 1, 1), and so does the reader', async (t) => {
  const slices = axial(5, CT).filter((_, i) => i !== 3);
  await withEnhanced(t, ['gdcminfo'], slices, { rescale: 'shared' }, async ({ file }) => {
    const volume = (await readDicom(file))[0]!.volume!;
    const info = assertGdcmGeometry(volume, file);
    assert.deepEqual(info.spacing, [1, 1, 1]);
    assert.deepEqual(volume.origin, [-5, -7, 10]);
  });
});

test('every frame at one position (a time series in one stack): z spacing 1, as GDCM and ITK give it', async (t) => {
  const slices = axial(3, CT).map((s) => ({ ...s, position: [-5, -7, 10] as [number, number, number] }));
  await withEnhanced(t, ['gdcminfo'], slices, { rescale: 'shared' }, async ({ file }) => {
    const volume = (await readDicom(file))[0]!.volume!;
    assert.deepEqual(volume.spacing, [0.75, 0.5, 1]);
    const info = parseGdcmInfo(execFileSync('gdcminfo', [file], { encoding: 'utf8' }));
    assert.deepEqual(info.spacing, [0.75, 0.5, 1]);
  });
});
