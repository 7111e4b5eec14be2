import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { readDicom } from '../../../src/volume/dicom/index.js';
import { readImageBytes } from '../../../src/volume/read-image.js';
import { withTempDir, withWorkbench } from '../../helpers/workbench.js';
import { needs, referenceParts } from './reference-tools.js';

/**
 * Philips 3D ultrasound as MITK's legacy reader takes it (`DicomSeriesReader::IsPhilips3DDicom`,
 * `ReadPhilips3DDicom`, called first by `BaseDICOMReaderService::DoRead`). The files are written
 * by pydicom with the private Philips elements that reader reads; voxel (x, y, p, t) holds
 * `x + 4·y + 16·p + 64·t` as stored, so where each stored plane lands can be told apart.
 */
const WRITE = String.raw`
import sys
import numpy as np
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.uid import ExplicitVRLittleEndian, generate_uid
out, creator, unit = sys.argv[1], sys.argv[2], int(sys.argv[3])
meta = FileMetaDataset()
meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.3.1'
meta.MediaStorageSOPInstanceUID = generate_uid()
meta.TransferSyntaxUID = ExplicitVRLittleEndian
ds = Dataset(); ds.file_meta = meta
ds.SOPClassUID = meta.MediaStorageSOPClassUID; ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
ds.Modality = 'US'; ds.PatientID = 'US3D'; ds.SeriesDescription = 'Heart 3D'
ds.StudyInstanceUID = generate_uid(); ds.SeriesInstanceUID = generate_uid()
ds.Columns = 4; ds.Rows = 3; ds.NumberOfFrames = 2
ds.SamplesPerPixel = 1; ds.PhotometricInterpretation = 'MONOCHROME2'
ds.BitsAllocated = 8; ds.BitsStored = 8; ds.HighBit = 7; ds.PixelRepresentation = 0
ds.add_new(0x0018602c, 'FD', 0.02); ds.add_new(0x0018602e, 'FD', 0.03)
ds.add_new(0x00186024, 'US', unit); ds.add_new(0x00186026, 'US', unit)
ds.add_new(0x30010010, 'LO', creator)
ds.add_new(0x30011001, 'UL', 3)
ds.add_new(0x30011002, 'US', unit)
ds.add_new(0x30011003, 'FD', 0.05)
x, y, p, t = np.meshgrid(np.arange(4), np.arange(3), np.arange(3), np.arange(2), indexing='ij')
values = (x + 4 * y + 16 * p + 64 * t).astype(np.uint8)
ds.PixelData = np.transpose(values, (3, 2, 1, 0)).tobytes()
ds.is_little_endian = True; ds.is_implicit_VR = False; ds.preamble = b'\0' * 128
ds.save_as(out, write_like_original=False)
`;

async function withPython(t: TestContext, fn: (dir: string, python: string) => Promise<void>): Promise<void> {
  const parts = referenceParts();
  if (!needs(t, parts.missing)) return;
  await withTempDir((dir) => fn(dir, parts.python!));
}

test('Philips 3D+t ultrasound: a uint8 image of its private size and spacing, planes reversed, named after its file', async (t) => {
  await withPython(t, async (dir, python) => {
    const file = join(dir, 'heart.dcm');
    execFileSync(python, ['-c', WRITE, file, 'Philips3D', '3']);
    const [read, ...more] = await readDicom(file);
    assert.equal(more.length, 0);
    const v = read!.volume!;
    assert.deepEqual(v.dims, [4, 3, 3]);
    assert.equal(v.frames.length, 2, 'NumberOfFrames time steps');
    // Unit 3 is centimetres: MITK multiplies by 10.
    v.spacing.forEach((s, i) => assert.ok(Math.abs(s - [0.2, 0.3, 0.5][i]!) < 1e-9, `spacing ${v.spacing}`));
    assert.deepEqual(v.origin, [0, 0, 0]);
    assert.deepEqual(v.direction, [1, 0, 0, 0, 1, 0, 0, 0, 1]);
    assert.equal(v.componentType, 'uint8');
    const at = (x: number, y: number, z: number, step: number): number => v.frames[step]![x + 4 * y + 12 * z]!;
    // Output plane z holds stored plane 2 - z, in each time step.
    assert.equal(at(1, 2, 0, 0), 1 + 8 + 16 * 2);
    assert.equal(at(3, 0, 2, 0), 3);
    assert.equal(at(0, 1, 1, 1), 4 + 16 + 64);
    assert.deepEqual(v.range, [0, 3 + 8 + 32 + 64]);
    assert.deepEqual(read!.properties, { name: 'heart.dcm' }, 'the file name, and no DICOM tags');
  });
});

test('Philips 3D spacing in other units is taken as it stands; another private creator is read as any DICOM', async (t) => {
  await withPython(t, async (dir, python) => {
    const mm = join(dir, 'mm.dcm');
    execFileSync(python, ['-c', WRITE, mm, 'Philips3D', '4']);
    const [read] = await readDicom(mm);
    assert.deepEqual(read!.volume!.spacing, [0.02, 0.03, 0.05]);
    const other = join(dir, 'other.dcm');
    execFileSync(python, ['-c', WRITE, other, 'Philips3E', '3']);
    const [plain] = await readDicom(other);
    // The generic reader: one file of NumberOfFrames (2) frames, one time step.
    assert.deepEqual(plain!.volume!.dims, [4, 3, 2]);
    assert.equal(plain!.volume!.frames.length, 1);
    assert.equal(plain!.properties['name'], 'Heart 3D');
  });
});

test('Philips 3D ultrasound in the reference workbench: a 3D+t node whose download holds the reversed planes', async (t) => {
  await withPython(t, async (dir, python) => {
    const file = join(dir, 'heart.dcm');
    execFileSync(python, ['-c', WRITE, file, 'Philips3D', '3']);
    await withWorkbench({}, async (wb) => {
      const created = await wb.call('POST', '/datastorage/nodes', { json: { transfer: { file_path: file } } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.data.name, 'heart.dcm');
      const data = await wb.call('GET', `/datastorage/nodes/${created.json.data.uid}/data`);
      const volume = readImageBytes(data.bytes, 'nrrd');
      assert.deepEqual(volume.dims, [4, 3, 3]);
      assert.equal(volume.frames.length, 2);
      assert.equal(volume.frames[1]![1 + 4 * 2 + 12 * 0], 1 + 8 + 32 + 64);
    });
  });
});
