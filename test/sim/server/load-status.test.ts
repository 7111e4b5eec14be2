// Which status a load that fails is answered with, case by case, as MITK's code decides it.
//
// Modules/RESTAPI/src/mitkDataStorageController.cpp:
//   HandlePOST_nodes_uid_generic, HandlePUT_nodes_uid_data: a Content-Type that is neither JSON
//     nor octet-stream is 415 UNSUPPORTED_FORMAT, before anything is read;
//   ResolveDataPath: a missing file-reference path is 422 FILE_NOT_FOUND; an upload whose
//     filename has no extension and that has no X-MITK-Data-Format is 400;
//   LoadDataFromFile: any exception of IOUtil::Load is 422 FILE_READ_ERROR; an empty result 415.
// Modules/Core/src/IO/mitkIOUtil.cpp, IOUtil::Load(std::vector<LoadInfo>&, ...): a file no reader
//   takes ("No reader available"), a reader that throws, and a reader that returns nothing
//   ("Unknown read error occurred") each add to the error message, and IOUtil::Load(path)
//   throws when it is not empty. So the controller's 415 for an empty result is never reached:
//   every file that exists and does not load is 422.
// Modules/Core/src/IO/mitkIOMimeTypes.cpp, BaseDicomMimeType::AppliesTo: a file is DICOM to
//   MITK when GDCM reads its image information, whatever its name (and not RTSTRUCT, RTDOSE or
//   RTPLAN); a DICOM object without pixels matches no DICOM reader, so it has no reader: 422.
import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import dicomParser from 'dicom-parser';
import { withTempDir, withWorkbench, type TestWorkbench } from '../../helpers/workbench.js';
import { needs, referenceParts } from '../../volume/dicom/reference-tools.js';
import { axial, writeSeries } from '../../volume/dicom/synthetic.js';
import { imageBytes } from './volumes.js';

const OCTET = 'application/octet-stream';

interface Case {
  /** What the file is, and where MITK's code decides its answer. */
  what: string;
  file: string;
  status: number;
  code: string;
}

async function scene(wb: TestWorkbench): Promise<unknown> {
  return (await wb.call('GET', '/datastorage/nodes')).json;
}

/**
 * Each case by file reference, by upload under its own name and by PUT of a node's data: the
 * same answer each way, the file named in the message, and the scene as it was.
 */
async function expectAnswers(wb: TestWorkbench, cases: Case[]): Promise<void> {
  const keep = (await wb.call('POST', '/datastorage/nodes', { json: { name: 'keep' } })).json.data.uid as string;
  const before = await scene(wb);
  for (const c of cases) {
    const name = c.file.split('/').pop()!;
    const answers = [
      ['by reference', await wb.call('POST', '/datastorage/nodes', { json: { transfer: { file_path: c.file } } })],
      [
        'uploaded',
        await wb.call('POST', '/datastorage/nodes', {
          body: await readFile(c.file),
          headers: { 'content-type': OCTET, 'content-disposition': `attachment; filename="${name}"` },
        }),
      ],
      [
        'PUT by reference',
        await wb.call('PUT', `/datastorage/nodes/${keep}/data`, { json: { transfer: { file_path: c.file } } }),
      ],
    ] as const;
    for (const [how, a] of answers) {
      assert.equal(a.status, c.status, `${c.what} ${how}: ${a.text}`);
      assert.equal(a.json.error.code, c.code, `${c.what} ${how}`);
      assert.ok(a.json.error.message.includes(name), `${c.what} ${how}: the message names ${name}: ${a.text}`);
    }
  }
  assert.deepEqual(await scene(wb), before, 'no node was added and none changed');
}

function withDicomFiles(t: TestContext, fn: (dir: string, files: string) => Promise<void>): Promise<void> {
  const parts = referenceParts();
  if (!needs(t, parts.missing)) return Promise.resolve();
  return withTempDir(async (dir) => {
    writeSeries(parts.python!, dir, [
      { name: 'short.dcm', position: [0, 0, 0], truncate: 30, series: '9.1' },
      { name: 'htj2k.dcm', position: [0, 0, 0], transferSyntax: '1.2.840.10008.1.2.4.201', series: '9.2' },
    ]);
    await fn(dir, parts.files!);
  });
}

/** CT_small.dcm with BitsAllocated set to 24, a sample size neither GDCM's ITK reader nor ours reads. */
async function oddBits(files: string, out: string): Promise<string> {
  const bytes = new Uint8Array(await readFile(join(files, 'CT_small.dcm')));
  const element = dicomParser.parseDicom(bytes).elements['x00280100']!;
  new DataView(bytes.buffer, bytes.byteOffset).setUint16(element.dataOffset, 24, true);
  const file = join(out, 'bits24.dcm');
  await writeFile(file, bytes);
  return file;
}

test('DICOM that does not load is 422 FILE_READ_ERROR by reference, upload and PUT: not DICOM, no image, truncated, corrupt, unsupported syntax or sample size', async (t) => {
  await withDicomFiles(t, async (dir, files) => {
    await writeFile(join(dir, 'notes.dcm'), 'these are notes, not an image\n'.repeat(20));
    await copyFile(join(files, 'test-SR.dcm'), join(dir, 'report.dcm'));
    await copyFile(join(files, 'rtplan.dcm'), join(dir, 'plan.dcm'));
    const corrupt = new Uint8Array(await readFile(join(files, 'CT_small.dcm')));
    // The header stays, the pixel data's length runs past the end of the file.
    await writeFile(join(dir, 'cut.dcm'), corrupt.subarray(0, corrupt.length - 4000));
    const bits = await oddBits(files, dir);
    await withWorkbench({}, async (wb) => {
      await expectAnswers(wb, [
        // IOUtil::Load: no mime type applies, "No reader available".
        { what: 'text named .dcm', file: join(dir, 'notes.dcm'), status: 422, code: 'FILE_READ_ERROR' },
        // BaseDicomMimeType::AppliesTo: GDCM reads no image information from an SR: no reader.
        { what: 'a structured report', file: join(dir, 'report.dcm'), status: 422, code: 'FILE_READ_ERROR' },
        // BaseDicomMimeType::AppliesTo: RTPLAN is left to the RT readers, which read no plan.
        { what: 'an RT plan', file: join(dir, 'plan.dcm'), status: 422, code: 'FILE_READ_ERROR' },
        // The DICOM reader throws or returns nothing; LoadDataFromFile answers 422 either way.
        { what: 'a truncated slice', file: join(dir, 'short.dcm'), status: 422, code: 'FILE_READ_ERROR' },
        { what: 'cut pixel data', file: join(dir, 'cut.dcm'), status: 422, code: 'FILE_READ_ERROR' },
        { what: 'HTJ2K', file: join(dir, 'htj2k.dcm'), status: 422, code: 'FILE_READ_ERROR' },
        { what: '24 bits allocated', file: bits, status: 422, code: 'FILE_READ_ERROR' },
      ]);
    });
  });
});

test('a DICOM SEG loads (MITK reads it with its DICOMSegIO reader); a folder without a DICOM image is 422', async (t) => {
  await withDicomFiles(t, async (dir, files) => {
    await copyFile(join(files, 'liver_1frame.dcm'), join(dir, 'liver.dcm'));
    const empty = join(dir, 'empty');
    await mkdir(empty);
    await writeFile(join(empty, 'readme.txt'), 'no images here');
    await withWorkbench({}, async (wb) => {
      const seg = await wb.call('POST', '/datastorage/nodes', {
        json: { transfer: { file_path: join(dir, 'liver.dcm') } },
      });
      assert.equal(seg.status, 201, seg.text);
      assert.equal(seg.json.data.data_type, 'MultiLabelSegmentation');
      const uploaded = await wb.call('POST', '/datastorage/nodes', {
        body: await readFile(join(dir, 'liver.dcm')),
        headers: { 'content-type': OCTET, 'content-disposition': 'attachment; filename="liver.dcm"' },
      });
      assert.equal(uploaded.status, 201, uploaded.text);
      // BaseDicomMimeType::AppliesTo finds no DICOM file in the folder: no reader, 422.
      const folder = await wb.call('POST', '/datastorage/nodes', { json: { transfer: { file_path: empty } } });
      assert.equal(folder.status, 422, folder.text);
      assert.equal(folder.json.error.code, 'FILE_READ_ERROR');
    });
  });
});

test('NRRD, NIfTI and MetaImage that do not load, and a file no reader takes, are 422 FILE_READ_ERROR', async () => {
  await withTempDir(async (dir) => {
    const good = imageBytes('nrrd');
    const files: Record<string, Uint8Array | string> = {
      'truncated.nrrd': good.subarray(0, good.length - 10),
      'header-only.nrrd': 'NRRD0004\ntype: short\n',
      'garbage.nii': 'not a NIfTI header at all, far too short',
      'garbage.nii.gz': 'not gzip either',
      'damaged.mha':
        'ObjectType = Image\nNDims = 3\nDimSize = 4 3 2\nElementType = MET_SHORT\nElementDataFile = LOCAL\n\u0001',
      'notes.xyz': 'a format no reader takes',
      noextension: 'nothing to tell the format by',
    };
    for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
    await withWorkbench({}, async (wb) => {
      await expectAnswers(
        wb,
        Object.keys(files)
          .map((name) => ({
            // The readers throw for the first five; IOUtil::Load finds no reader for the last two.
            what: name,
            file: join(dir, name),
            status: 422,
            code: 'FILE_READ_ERROR',
          }))
          .filter((c) => !c.file.endsWith('noextension')),
      );
      // By reference the name does not matter; uploaded, a name without an extension is 400
      // (ResolveDataPath), whatever the bytes are.
      const byReference = await wb.call('POST', '/datastorage/nodes', {
        json: { transfer: { file_path: join(dir, 'noextension') } },
      });
      assert.equal(byReference.status, 422, byReference.text);
      assert.equal(byReference.json.error.code, 'FILE_READ_ERROR');
      const uploaded = await wb.call('POST', '/datastorage/nodes', {
        body: 'nothing to tell the format by',
        headers: { 'content-type': OCTET, 'content-disposition': 'attachment; filename="noextension"' },
      });
      assert.equal(uploaded.status, 400, uploaded.text);
      assert.equal(uploaded.json.error.code, 'INVALID_REQUEST');
    });
  });
});

test('415 UNSUPPORTED_FORMAT is a Content-Type the server does not take, never a file (HandlePOST_nodes_uid_generic, HandlePUT_nodes_uid_data)', async () => {
  await withWorkbench({}, async (wb) => {
    const keep = (await wb.call('POST', '/datastorage/nodes', { json: { name: 'keep' } })).json.data.uid as string;
    for (const [method, path] of [
      ['POST', '/datastorage/nodes'],
      ['POST', `/datastorage/nodes/${keep}/children`],
      ['PUT', `/datastorage/nodes/${keep}/data`],
    ] as const) {
      const a = await wb.call(method, path, { body: imageBytes('nrrd'), headers: { 'content-type': 'image/nrrd' } });
      assert.equal(a.status, 415, `${method} ${path}: ${a.text}`);
      assert.equal(a.json.error.code, 'UNSUPPORTED_FORMAT');
    }
  });
});

test("the code and the references disagree: they give 415 for a file that yields no data, MITK's code gives 422", async () => {
  // The OpenAPI description (UnsupportedFormat: "Unsupported media type or data format") and the
  // API notes ("file yields no data object -> 415") describe LoadDataFromFile's empty-result
  // branch. IOUtil::Load(path) throws for an empty result before that branch is reached, so the
  // workbench answers such a file as the code does: 422 FILE_READ_ERROR.
  await withTempDir(async (dir) => {
    const file = join(dir, 'nothing.xyz');
    await writeFile(file, 'no reader yields data from this');
    await withWorkbench({}, async (wb) => {
      const a = await wb.call('POST', '/datastorage/nodes', { json: { transfer: { file_path: file } } });
      assert.notEqual(a.status, 415, 'the references, not the code');
      assert.equal(a.status, 422, a.text);
      assert.equal(a.json.error.code, 'FILE_READ_ERROR');
      assert.equal(a.json.error.title, 'File Read Error');
    });
  });
});

test('a truncated slice off the series: the folder loads its good block, the slice alone is 422 (BaseDICOMReaderService::DoRead drops a block that fails)', async (t) => {
  const parts = referenceParts();
  if (!needs(t, parts.missing)) return;
  await withTempDir(async (dir) => {
    writeSeries(parts.python!, dir, [
      ...axial(3, { series: '5.5' }),
      { name: 'cut', position: [0, 0, 9], truncate: 30, series: '5.5' },
    ]);
    await withWorkbench({}, async (wb) => {
      const folder = await wb.call('POST', '/datastorage/nodes', { json: { transfer: { file_path: dir } } });
      assert.equal(folder.status, 201, folder.text);
      const info = await wb.call('GET', `/datastorage/nodes/${folder.json.data.uid}/data`);
      assert.equal(info.status, 200);
      const cut = await wb.call('POST', '/datastorage/nodes', {
        json: { transfer: { file_path: join(dir, 'cut') } },
      });
      assert.equal(cut.status, 422, cut.text);
      assert.equal(cut.json.error.code, 'FILE_READ_ERROR');
      assert.match(cut.json.error.message, /cut/);
    });
  });
});
