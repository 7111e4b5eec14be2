import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import dicomParser from 'dicom-parser';
import { readDicom } from '../../../src/volume/dicom/index.js';
import { withTempDir } from '../../helpers/workbench.js';
import { needs, referenceParts } from './reference-tools.js';

/**
 * Voxels against GDCM, the library MITK decodes with: `gdcmconv --raw` writes the file
 * uncompressed, and its samples, rescaled by the file's slope and intercept, are what MITK
 * holds. Lossless transfer syntaxes must match exactly; lossy ones within 2.
 */
const FILES: Array<[name: string, tolerance: number, type: string]> = [
  ['CT_small.dcm', 0, 'int32'],
  ['MR_small.dcm', 0, 'int16'],
  ['MR_small_implicit.dcm', 0, 'int16'],
  ['MR_small_bigendian.dcm', 0, 'int16'],
  ['MR_small_expb.dcm', 0, 'int16'],
  ['MR_small_padded.dcm', 0, 'int16'],
  ['MR_small_RLE.dcm', 0, 'int16'],
  ['MR_small_jpeg_ls_lossless.dcm', 0, 'int16'],
  ['MR_small_jp2klossless.dcm', 0, 'int16'],
  ['image_dfl.dcm', 0, 'uint8'],
  ['JPGExtended.dcm', 2, 'uint16'],
  ['JPEG-lossy.dcm', 2, 'uint16'],
  ['693_J2KI.dcm', 2, 'int32'],
  ['JPEG2000.dcm', 2, 'int16'],
  ['rtdose.dcm', 0, 'float32'],
  ['rtdose_rle.dcm', 0, 'float32'],
];

interface Reference {
  values: Float64Array;
  rgb?: Uint8Array;
}

/** GDCM's uncompressed samples, rescaled as the header says (and RTDOSE scaled by DoseGridScaling). */
function gdcmReference(source: string, out: string): Reference {
  execFileSync('gdcmconv', ['--raw', source, out], { stdio: 'ignore' });
  const bytes = readFileSync(out);
  const ds = dicomParser.parseDicom(bytes);
  const pixels = ds.elements.x7fe00010!;
  const bits = ds.uint16('x00280100')!;
  const signed = ds.uint16('x00280103') === 1;
  const samples = ds.uint16('x00280002') ?? 1;
  const data = new Uint8Array(bytes.subarray(pixels.dataOffset, pixels.dataOffset + pixels.length));
  const view =
    bits === 8
      ? data
      : bits === 16
        ? signed
          ? new Int16Array(data.buffer)
          : new Uint16Array(data.buffer)
        : signed
          ? new Int32Array(data.buffer)
          : new Uint32Array(data.buffer);
  const slope = Number(ds.string('x00281053') ?? 1);
  const intercept = Number(ds.string('x00281052') ?? 0);
  const dose = ds.string('x00080060') === 'RTDOSE' ? Number(ds.string('x3004000e') ?? 1) : 1;
  const count = view.length / samples;
  const values = new Float64Array(count);
  for (let i = 0; i < count; i++) values[i] = (view[i * samples]! * slope + intercept) * dose;
  return samples === 3 ? { values, rgb: data } : { values };
}

for (const [name, tolerance, type] of FILES) {
  test(`${name}: voxels equal GDCM's decode ${tolerance === 0 ? 'exactly' : `within ${tolerance}`}, as ${type}`, async (t) => {
    const parts = referenceParts(['gdcmconv']);
    if (!needs(t, parts.missing)) return;
    await withTempDir(async (dir) => {
      const source = join(parts.files!, name);
      const expected = gdcmReference(source, join(dir, 'raw.dcm'));
      const [read] = await readDicom(source, { onlyFile: true });
      const volume = read!.volume!;
      assert.equal(volume.componentType, type);
      const actual = volume.frames[0]!;
      // Padding after the pixels (MR_small_padded) stays in GDCM's copy; it is no voxel.
      assert.ok(
        expected.values.length >= actual.length,
        `voxel count ${actual.length} vs GDCM's ${expected.values.length}`,
      );
      let worst = 0;
      for (let i = 0; i < actual.length; i++) {
        // Float32 holds what MITK holds as float (RTDOSE) to its precision.
        const d =
          Math.abs(actual[i]! - expected.values[i]!) /
          (type === 'float32' ? Math.max(1, Math.abs(expected.values[i]!)) * 1e-6 : 1);
        if (d > worst) worst = d;
      }
      assert.ok(worst <= (type === 'float32' ? 1 : tolerance), `largest difference ${worst}`);
    });
  });
}

test("colour: RLE and lossless JPEG RGB decode to GDCM's RGB bytes exactly", async (t) => {
  const parts = referenceParts(['gdcmconv']);
  if (!needs(t, parts.missing)) return;
  await withTempDir(async (dir) => {
    for (const name of ['SC_rgb_rle.dcm', 'SC_rgb_jpeg_gdcm.dcm', 'SC_rgb_rle_2frame.dcm']) {
      const source = join(parts.files!, name);
      const expected = gdcmReference(source, join(dir, `${name}.raw.dcm`));
      const [read] = await readDicom(source, { onlyFile: true });
      const volume = read!.volume!;
      assert.equal(volume.componentType, 'uint8', name);
      const rgb = volume.rgb?.[0];
      assert.ok(rgb, `${name}: RGB frames`);
      assert.equal(rgb.length, expected.rgb!.length, `${name}: sample count`);
      assert.deepEqual(Buffer.from(rgb).equals(Buffer.from(expected.rgb!)), true, `${name}: RGB bytes equal GDCM's`);
    }
  });
});

test("uncompressed YBR_FULL_422 becomes RGB within 1 of pydicom's conversion", async (t) => {
  const parts = referenceParts();
  if (!needs(t, parts.missing)) return;
  const source = join(parts.files!, 'SC_ybr_full_422_uncompressed.dcm');
  const expected = execFileSync(parts.python!, [
    '-c',
    'import sys, pydicom\nfrom pydicom.pixel_data_handlers.util import convert_color_space\n' +
      'd = pydicom.dcmread(sys.argv[1])\nsys.stdout.buffer.write(convert_color_space(d.pixel_array, "YBR_FULL", "RGB").tobytes())',
    source,
  ]);
  const [read] = await readDicom(source, { onlyFile: true });
  const rgb = read!.volume!.rgb![0]!;
  assert.equal(rgb.length, expected.length);
  let worst = 0;
  for (let i = 0; i < rgb.length; i++) worst = Math.max(worst, Math.abs(rgb[i]! - expected[i]!));
  assert.ok(worst <= 1, `largest difference ${worst}`);
});

test('a codestream GDCM cannot decode (JPEG2000-embedded-sequence-delimiter.dcm) fails here too, as CORRUPT naming the file', async (t) => {
  const parts = referenceParts(['gdcmconv']);
  if (!needs(t, parts.missing)) return;
  await withTempDir(async (dir) => {
    const source = join(parts.files!, 'JPEG2000-embedded-sequence-delimiter.dcm');
    assert.throws(() => execFileSync('gdcmconv', ['--raw', source, join(dir, 'raw.dcm')], { stdio: 'ignore' }));
    await assert.rejects(readDicom(source, { onlyFile: true }), { code: 'CORRUPT', file: source });
  });
});
