import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { gunzipSync } from 'node:zlib';
import dicomParser from 'dicom-parser';
import { PNG } from 'pngjs';
import { readDicom, DicomReadError } from '../../../src/volume/dicom/index.js';
import { readDataSet } from '../../../src/volume/dicom/data-set.js';
import { readImageBytes } from '../../../src/volume/read-image.js';
import { writeImageBytes } from '../../../src/volume/write-image.js';
import { readPalette } from '../../../src/volume/dicom/palette.js';
import { sliceHeader } from '../../../src/volume/dicom/slice-header.js';
import { withTempDir, withWorkbench } from '../../helpers/workbench.js';
import { needs, referenceParts } from './reference-tools.js';
import { axial, writeSeries } from './synthetic.js';

/**
 * PALETTE COLOR files made by DCMTK's dcmquant from pydicom's RGB test files, held against
 * GDCM's own expansion (`gdcmconv --apply-lut`, GDCM's ImageApplyLookupTable, which ITK and so
 * MITK call): the RGB samples it writes are what MITK holds.
 */
const TOOLS = ['gdcmconv', 'dcmquant'];

async function withParts(t: TestContext, fn: (dir: string, files: string, python: string) => Promise<void>) {
  const parts = referenceParts(TOOLS);
  if (!needs(t, parts.missing)) return;
  await withTempDir((dir) => fn(dir, parts.files!, parts.python!));
}

/** An RGB test file of pydicom's quantised to a palette by dcmquant with `options`. */
function quantise(files: string, name: string, dir: string, out: string, options: string[]): string {
  // dcmquant reads uncompressed data only; GDCM writes it so first.
  const raw = join(dir, `${out}-source.dcm`);
  execFileSync('gdcmconv', ['--raw', join(files, name), raw]);
  const target = join(dir, `${out}.dcm`);
  execFileSync('dcmquant', [...options, raw, target]);
  return target;
}

/** GDCM's expansion: its RGB samples and their bits. */
function gdcmExpansion(file: string): { bits: number; samples: Uint8Array | Uint16Array } {
  const out = `${file}.gdcm-rgb.dcm`;
  execFileSync('gdcmconv', ['--apply-lut', '--raw', file, out]);
  const ds = dicomParser.parseDicom(readFileSync(out));
  assert.equal(ds.string('x00280004'), 'RGB');
  const pixels = ds.elements.x7fe00010!;
  const bytes = new Uint8Array(ds.byteArray.subarray(pixels.dataOffset, pixels.dataOffset + pixels.length));
  const bits = ds.uint16('x00280100')!;
  return { bits, samples: bits === 16 ? new Uint16Array(bytes.buffer) : bytes };
}

/** The 16-bit RGB samples the file's palette gives its stored values, before they are made bytes. */
async function paletteSamples(file: string): Promise<Uint16Array> {
  const h = sliceHeader(await readDataSet(file));
  const { table } = readPalette(h);
  const pixels = h.ds.elements.x7fe00010!;
  const stored = new Uint16Array(
    new Uint8Array(h.ds.byteArray.subarray(pixels.dataOffset, pixels.dataOffset + pixels.length)).buffer,
  );
  const out = new Uint16Array(stored.length * 3);
  stored.forEach((v, i) => out.set(table.subarray(v * 3, v * 3 + 3), i * 3));
  return out;
}

const header = (file: string) => dicomParser.parseDicom(readFileSync(file), { untilTag: 'x7fe00010' });

test('8-bit palettes with 8-bit and 16-bit entries expand to GDCM’s RGB bytes exactly, as unsigned char RGB', async (t) => {
  await withParts(t, async (dir, files) => {
    for (const [out, options, entryBits] of [
      ['packed', [], 8],
      ['words', ['+pe'], 16],
    ] as const) {
      const file = quantise(files, 'SC_rgb_rle.dcm', dir, out, [...options]);
      const h = header(file);
      assert.equal(h.string('x00280004'), 'PALETTE COLOR');
      assert.equal(h.uint16('x00280100'), 8);
      assert.equal(h.uint16('x00281101', 2), entryBits);
      const gdcm = gdcmExpansion(file);
      assert.equal(gdcm.bits, 8, 'GDCM keeps 8 bits for an 8-bit image, whatever the entries');
      const [read] = await readDicom(file);
      const v = read!.volume!;
      assert.equal(v.componentType, 'uint8');
      assert.deepEqual(v.dims, [100, 100, 1]);
      assert.ok(Buffer.from(v.rgb![0]!).equals(Buffer.from(gdcm.samples)), `${out}: RGB bytes as GDCM's`);
      assert.equal(read!.properties['dicom.pixel.PhotometricInterpretation'], 'PALETTE COLOR');
    }
  });
});

test('a 16-bit palette index gives 16-bit RGB as GDCM does (unsigned short), held unscaled as GDCM’s samples', async (t) => {
  await withParts(t, async (dir, files) => {
    const file = quantise(files, 'SC_rgb_rle_16bit.dcm', dir, 'sixteen', ['+pe', '+pc', '1000']);
    assert.equal(header(file).uint16('x00280100'), 16);
    const gdcm = gdcmExpansion(file);
    assert.equal(gdcm.bits, 16);
    const [read] = await readDicom(file);
    const v = read!.volume!;
    assert.equal(v.componentType, 'uint16');
    assert.deepEqual(await paletteSamples(file), gdcm.samples, '16-bit samples as GDCM gives them');
    assert.ok(v.rgb![0] instanceof Uint16Array, 'held as unsigned shorts');
    assert.deepEqual(v.rgb![0], gdcm.samples, 'the held samples are GDCM’s, not scaled');
    // The palette had more than two colours in use, so this says something.
    assert.ok(new Set(gdcm.samples).size > 3);
  });
});

/**
 * A 16-bit palette image with segmented tables, written by pydicom: a discrete segment, linear
 * ramps and an indirect segment that replays earlier ones, in each channel.
 */
const SEGMENTED = String.raw`
import sys, numpy as np
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.uid import ExplicitVRLittleEndian, generate_uid
path = sys.argv[1]
hostile = len(sys.argv) > 2
meta = FileMetaDataset(); meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.7'
meta.MediaStorageSOPInstanceUID = generate_uid(); meta.TransferSyntaxUID = ExplicitVRLittleEndian
ds = Dataset(); ds.file_meta = meta
ds.SOPClassUID = meta.MediaStorageSOPClassUID; ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
ds.Modality = 'OT'; ds.PatientID = 'SEG'; ds.StudyInstanceUID = generate_uid(); ds.SeriesInstanceUID = generate_uid()
ds.Rows = 32; ds.Columns = 64; ds.SamplesPerPixel = 1; ds.PhotometricInterpretation = 'PALETTE COLOR'
ds.BitsAllocated = 16; ds.BitsStored = 16; ds.HighBit = 15; ds.PixelRepresentation = 0
length = 1200
for name in ('Red', 'Green', 'Blue'):
    setattr(ds, name + 'PaletteColorLookupTableDescriptor', [length, 0, 16])
# Each channel expands to exactly its 1200 entries, as GDCM requires. Red: 3 discrete values,
# a ramp to 60000 and one back to 1000, the first two segments again (byte offset 0), a ramp to
# 65535. Blue replays its ramp (the segment at byte offset 8) from where it stands.
red = [0, 3, 100, 200, 300, 1, 400, 60000, 1, 200, 1000, 2, 2, 0, 0, 1, 194, 65535]
green = [0, 1, 65535, 1, 1199, 0]
blue = [0, 2, 7, 7, 1, 400, 30000, 2, 1, 8, 0, 1, 398, 12345]
if hostile:
    # 200 indirect segments, each replaying all of them from the first one on.
    red = [0, 1, 5] + [2, 200, 6, 0] * 200
for name, seg in (('Red', red), ('Green', green), ('Blue', blue)):
    ds.add_new({'Red': 0x00281221, 'Green': 0x00281222, 'Blue': 0x00281223}[name], 'OW', np.array(seg, '<u2').tobytes())
y, x = np.mgrid[0:32, 0:64]
ds.PixelData = ((x + 64 * y) % length).astype('<u2').tobytes()
ds.save_as(path, write_like_original=False)
`;

test('segmented palettes (discrete, linear and indirect segments) expand as GDCM expands them', async (t) => {
  await withParts(t, async (dir, _files, python) => {
    const file = join(dir, 'segmented.dcm');
    execFileSync(python, ['-c', SEGMENTED, file]);
    const gdcm = gdcmExpansion(file);
    assert.equal(gdcm.bits, 16);
    const [read] = await readDicom(file);
    const v = read!.volume!;
    assert.equal(v.componentType, 'uint16');
    assert.deepEqual(await paletteSamples(file), gdcm.samples, '16-bit samples as GDCM gives them');
    assert.deepEqual(v.rgb![0], gdcm.samples, 'the held samples are GDCM’s, not scaled');
    // The ramps give many shades.
    assert.ok(new Set(gdcm.samples).size > 100);
  });
});

test('segmented tables whose indirect segments replay each other fail as CORRUPT, not for ever', async (t) => {
  await withParts(t, async (dir, _files, python) => {
    const file = join(dir, 'hostile.dcm');
    execFileSync(python, ['-c', SEGMENTED, file, 'hostile']);
    await assert.rejects(readDicom(file), (err: unknown) => {
      assert.ok(err instanceof DicomReadError);
      assert.equal(err.code, 'CORRUPT');
      assert.equal(err.file, file);
      assert.match(err.reason, /segmented palette data/);
      return true;
    });
  });
});

test('three samples that are neither RGB nor YBR are refused with MITK’s "Unsupported DICOM pixel type"', async (t) => {
  await withParts(t, async (dir, files, python) => {
    const cases: Array<[string, string]> = [
      ['hsv.dcm', "ds.PhotometricInterpretation = 'HSV'"],
      ['ybr16.dcm', "ds.PhotometricInterpretation = 'YBR_FULL'"],
    ];
    for (const [name, change] of cases) {
      const source = name === 'ybr16.dcm' ? 'SC_rgb_rle_16bit.dcm' : 'SC_rgb_rle.dcm';
      const target = join(dir, name);
      execFileSync('gdcmconv', ['--raw', join(files, source), `${target}.raw`]);
      execFileSync(python, [
        '-c',
        `import pydicom, sys\nds = pydicom.dcmread(sys.argv[1])\n${change}\nds.save_as(sys.argv[2])`,
        `${target}.raw`,
        target,
      ]);
      await assert.rejects(readDicom(target), (err: unknown) => {
        assert.ok(err instanceof DicomReadError);
        assert.equal(err.code, 'UNSUPPORTED_PIXEL_DATA');
        assert.equal(err.file, target);
        assert.match(err.reason, /Unsupported DICOM pixel type/);
        return true;
      });
    }
  });
});

test('a block MITK cannot load is dropped and the folder’s other blocks load, as BaseDICOMReaderService::DoRead does', async (t) => {
  await withParts(t, async (dir, files, python) => {
    writeSeries(python, dir, axial(3));
    const raw = join(dir, 'hsv.raw');
    execFileSync('gdcmconv', ['--raw', join(files, 'SC_rgb_rle.dcm'), raw]);
    execFileSync(python, [
      '-c',
      "import pydicom, sys\nds = pydicom.dcmread(sys.argv[1])\nds.PhotometricInterpretation = 'HSV'\nds.save_as(sys.argv[2])",
      raw,
      join(dir, 'hsv.dcm'),
    ]);
    const { rm } = await import('node:fs/promises');
    await rm(raw);
    const reads = await readDicom(dir);
    assert.equal(reads.length, 1, 'the HSV block is dropped');
    assert.deepEqual(reads[0]!.volume!.dims.slice(0, 3), [6, 8, 3]);
    assert.ok(!reads[0]!.files.some((f) => f.endsWith('hsv.dcm')));
    // Alone, the file loads nothing, and the read says why.
    await assert.rejects(readDicom(join(dir, 'hsv.dcm')), { code: 'UNSUPPORTED_PIXEL_DATA' });
  });
});

test('a palette colour file loaded by the reference workbench downloads as an RGB NRRD of GDCM’s bytes', async (t) => {
  await withParts(t, async (dir, files) => {
    const file = quantise(files, 'SC_rgb_rle.dcm', dir, 'palette', []);
    const gdcm = gdcmExpansion(file);
    await withWorkbench({}, async (wb) => {
      const created = await wb.call('POST', '/datastorage/nodes', { json: { transfer: { file_path: file } } });
      assert.equal(created.status, 201, created.text);
      const data = await wb.call('GET', `/datastorage/nodes/${created.json.data.uid}/data`);
      const text = data.bytes.toString('latin1');
      const end = text.indexOf('\n\n');
      assert.match(text.slice(0, end), /^kinds: RGB-color domain domain domain$/m);
      assert.ok(gunzipSync(data.bytes.subarray(end + 2)).equals(Buffer.from(gdcm.samples)));
    });
  });
});

test('a 16-bit palette file in the reference workbench: unsigned short node, a 16-bit RGB NRRD of GDCM’s samples that reads back, drawn in its colours', async (t) => {
  await withParts(t, async (dir, files) => {
    const file = quantise(files, 'SC_rgb_rle_16bit.dcm', dir, 'sixteen', ['+pe', '+pc', '1000']);
    const gdcm = gdcmExpansion(file);
    assert.equal(gdcm.bits, 16);
    await withWorkbench({}, async (wb) => {
      const created = await wb.call('POST', '/datastorage/nodes', { json: { transfer: { file_path: file } } });
      assert.equal(created.status, 201, created.text);
      const uid = created.json.data.uid as string;
      const reference = await wb.call('GET', `/datastorage/nodes/${uid}/data`, {
        headers: { 'x-mitk-transfer-mode': 'file-reference' },
      });
      assert.equal(reference.json.data_metadata.pixel_type, 'unsigned_short');

      const data = await wb.call('GET', `/datastorage/nodes/${uid}/data`);
      const text = data.bytes.toString('latin1');
      const end = text.indexOf('\n\n');
      const header = text.slice(0, end);
      assert.match(header, /^type: unsigned short$/m);
      assert.match(header, /^sizes: 3 100 100 1$/m);
      assert.match(header, /^kinds: RGB-color domain domain domain$/m);
      assert.match(header, /^endian: little$/m);
      const body = gunzipSync(data.bytes.subarray(end + 2));
      assert.ok(body.equals(Buffer.from(gdcm.samples.buffer)), 'the download’s samples are GDCM’s 16-bit ones');
      // Read back: the same unsigned short samples, as a colour image again.
      const back = readImageBytes(data.bytes, 'nrrd');
      assert.equal(back.componentType, 'uint16');
      assert.ok(back.rgb![0] instanceof Uint16Array);
      assert.deepEqual(back.rgb![0], gdcm.samples);

      // 1 mm a pixel over the 100 x 100 image, the crosshair on its corner.
      assert.equal(
        (await wb.call('PUT', '/rendering/selected-position', { json: { position: [0, 0, 0] } })).status,
        204,
      );
      const cam = await wb.call('PUT', '/rendering/editors/stdmulti/windows/axial/camera', {
        json: { focal_point: [49.5, 49.5, 0], position: [49.5, 49.5, -500], view_up: [0, -1, 0], parallel_scale: 50 },
      });
      assert.equal(cam.status, 204, cam.text);
      const shot = await wb.call('GET', '/rendering/editors/stdmulti/windows/axial/screenshot?width=100&height=100');
      assert.equal(shot.status, 200, shot.text);
      const png = PNG.sync.read(shot.bytes);
      // MITK's colour level window filter clamps each sample to 0..255 before it draws
      // (vtkMitkLevelWindowFilter, RGBtoHSI); the view then holds colours to 5-6-5 bits.
      const shown = (v: number, bits: number): number =>
        Math.round(((Math.min(v, 255) >> (8 - bits)) * 255) / (2 ** bits - 1));
      let checked = 0;
      let clampedMid = 0;
      for (let y = 5; y < 95; y += 3)
        for (let x = 5; x < 95; x += 3) {
          const s = (y * 100 + x) * 3;
          // Pixels on a stripe's edge take a little of the next stripe in the view's sampling.
          const same = (d: number): boolean => [0, 1, 2].every((c) => gdcm.samples[s + d + c] === gdcm.samples[s + c]);
          if (!same(-300) || !same(300)) continue;
          const o = (y * png.width + x) * 4;
          const want = [shown(gdcm.samples[s]!, 5), shown(gdcm.samples[s + 1]!, 6), shown(gdcm.samples[s + 2]!, 5)];
          const got = [...png.data.subarray(o, o + 3)];
          for (let c = 0; c < 3; c++)
            assert.ok(
              Math.abs(got[c]! - want[c]!) <= 1,
              `pixel (${x}, ${y}): ${got.join(',')}, ${want.join(',')} expected`,
            );
          checked++;
          for (let c = 0; c < 3; c++) if (gdcm.samples[s + c]! > 255 && gdcm.samples[s + c]! < 65000) clampedMid++;
        }
      assert.ok(checked > 500);
      // Mid-range samples show at full intensity, as in MITK, not scaled down by 257.
      assert.ok(clampedMid > 0, 'the image has mid-range 16-bit samples');
      const colours = new Set<string>();
      for (let i = 0; i < png.width * png.height; i++) colours.add(png.data.subarray(i * 4, i * 4 + 3).join(','));
      assert.ok(colours.size >= 3, `drawn in colours (${colours.size})`);
    });
  });
});

test('16-bit RGB DICOM is held as GDCM’s unsigned short samples; NIfTI and MetaImage refuse it', async (t) => {
  await withParts(t, async (dir, files, python) => {
    // pydicom's 16-bit RGB test file, uncompressed by pydicom (GDCM's own RLE decoding of it
    // is not what this test is about), then read back by GDCM as the oracle.
    const source = join(dir, 'rgb16.dcm');
    execFileSync(python, [
      '-c',
      'import pydicom, sys\nds = pydicom.dcmread(sys.argv[1])\nds.decompress()\nds.save_as(sys.argv[2])',
      join(files, 'SC_rgb_rle_16bit.dcm'),
      source,
    ]);
    const raw = join(dir, 'rgb16-raw.dcm');
    execFileSync('gdcmconv', ['--raw', source, raw]);
    const ds = dicomParser.parseDicom(readFileSync(raw));
    assert.equal(ds.uint16('x00280100'), 16);
    assert.equal(ds.uint16('x00280006'), 0, 'interleaved');
    const pixels = ds.elements.x7fe00010!;
    const gdcm = new Uint16Array(
      new Uint8Array(ds.byteArray.subarray(pixels.dataOffset, pixels.dataOffset + pixels.length)).buffer,
    );
    const [read] = await readDicom(source);
    const v = read!.volume!;
    assert.equal(v.componentType, 'uint16');
    assert.ok(v.rgb![0] instanceof Uint16Array);
    assert.deepEqual(v.rgb![0], gdcm);
    assert.ok(
      gdcm.some((s) => s > 255 && s < 65535),
      'samples a byte could not hold',
    );
    for (const format of ['nii', 'nii.gz', 'mha'] as const)
      assert.throws(
        () => writeImageBytes(v, format),
        new RegExp(`16-bit RGB colour image can only be written as NRRD, not as \\.${format.replace('.', '\\.')}`),
      );
  });
});

/** A multi-frame 16-bit RGB file of random samples, written by pydicom; its samples go to `<path>.samples`. */
const LARGE_RGB16 = String.raw`
import sys, numpy as np
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.uid import ExplicitVRLittleEndian, generate_uid
path = sys.argv[1]
meta = FileMetaDataset(); meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.7.4'
meta.MediaStorageSOPInstanceUID = generate_uid(); meta.TransferSyntaxUID = ExplicitVRLittleEndian
ds = Dataset(); ds.file_meta = meta
ds.SOPClassUID = meta.MediaStorageSOPClassUID; ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
ds.Modality = 'OT'; ds.PatientID = 'RGB16'; ds.StudyInstanceUID = generate_uid(); ds.SeriesInstanceUID = generate_uid()
ds.Rows = 256; ds.Columns = 256; ds.NumberOfFrames = 64; ds.SamplesPerPixel = 3; ds.PlanarConfiguration = 0
ds.PhotometricInterpretation = 'RGB'; ds.BitsAllocated = 16; ds.BitsStored = 16; ds.HighBit = 15; ds.PixelRepresentation = 0
samples = np.random.default_rng(7).integers(0, 65536, size=(64, 256, 256, 3), dtype='<u2')
ds.PixelData = samples.tobytes()
ds.save_as(path, write_like_original=False)
samples.tofile(path + '.samples')
`;

test('a large 16-bit RGB file decoded by the thread pool in ranges of frames holds its unsigned short samples', async (t) => {
  await withParts(t, async (dir, _files, python) => {
    const file = join(dir, 'large-rgb16.dcm');
    execFileSync(python, ['-c', LARGE_RGB16, file]);
    const written = new Uint16Array(new Uint8Array(readFileSync(`${file}.samples`)).buffer);
    const [read] = await readDicom(file);
    const v = read!.volume!;
    assert.deepEqual(v.dims, [256, 256, 64]);
    assert.equal(v.componentType, 'uint16');
    const held = v.rgb![0]!;
    assert.ok(held instanceof Uint16Array);
    assert.ok(held.buffer instanceof SharedArrayBuffer, 'decoded into shared memory by the pool');
    assert.ok(Buffer.from(held.buffer, held.byteOffset, held.byteLength).equals(Buffer.from(written.buffer)));
    const at = 123457;
    const [r, g, b] = [written[at * 3]!, written[at * 3 + 1]!, written[at * 3 + 2]!];
    assert.ok(Math.abs(v.frames[0]![at]! - (0.299 * r + 0.587 * g + 0.114 * b)) < 0.05, 'luminance of the samples');
  });
});
