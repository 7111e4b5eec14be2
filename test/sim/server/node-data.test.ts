import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { readImageBytes } from '../../../src/volume/read-image.js';
import { withTempDir, withWorkbench, type TestWorkbench } from '../../helpers/workbench.js';
import { imageBytes, smallVolume, writeImage } from './volumes.js';

const OCTET = 'application/octet-stream';

async function emptyNode(wb: TestWorkbench, name = 'N'): Promise<string> {
  return (await wb.call('POST', '/datastorage/nodes', { json: { name } })).json.data.uid;
}

async function scene(wb: TestWorkbench): Promise<unknown> {
  return (await wb.call('GET', '/datastorage/nodes')).json;
}

test('direct upload: format from the Content-Disposition extension, else X-MITK-Data-Format; name from ?name= or the file', async () => {
  await withWorkbench({}, async (wb) => {
    const quoted = await wb.call('POST', '/datastorage/nodes?name=CT', {
      body: imageBytes(),
      headers: { 'content-type': OCTET, 'content-disposition': 'attachment; filename="scan.nrrd"' },
    });
    assert.equal(quoted.status, 201, quoted.text);
    assert.equal(quoted.json.data.name, 'CT');
    assert.equal(quoted.json.data.data_type, 'Image');
    const bare = await wb.call('POST', '/datastorage/nodes', {
      body: imageBytes('mha'),
      headers: { 'content-type': OCTET, 'content-disposition': 'attachment; filename=brain.mha' },
    });
    assert.equal(bare.status, 201, bare.text);
    assert.equal(bare.json.data.name, 'brain', 'without ?name= the node is named after the file');
    const header = await wb.call('POST', '/datastorage/nodes?name=H', {
      body: imageBytes('nii'),
      headers: { 'content-type': OCTET, 'x-mitk-data-format': 'nii' },
    });
    assert.equal(header.status, 201, header.text);
    const neither = await wb.call('POST', '/datastorage/nodes?name=X', {
      body: imageBytes(),
      headers: { 'content-type': OCTET },
    });
    assert.equal(neither.status, 400);
    assert.match(neither.json.error.message, /^Cannot determine file format/);
    const empty = await wb.call('POST', '/datastorage/nodes?name=X', {
      body: new Uint8Array(0),
      headers: { 'content-type': OCTET, 'x-mitk-data-format': 'nrrd' },
    });
    assert.equal(empty.status, 400);
  });
});

test('a double extension (ct.nii.gz) works with the full suffix and with the last suffix only, as the real server reads it', async () => {
  await withWorkbench({}, async (wb) => {
    const gz = imageBytes('nii.gz');
    const full = await wb.call('POST', '/datastorage/nodes', {
      body: gz,
      headers: { 'content-type': OCTET, 'content-disposition': 'attachment; filename="ct.nii.gz"' },
    });
    assert.equal(full.status, 201, full.text);
    assert.equal(full.json.data.name, 'ct');
    for (const format of ['nii.gz', 'gz']) {
      const viaHeader = await wb.call('POST', '/datastorage/nodes?name=h', {
        body: gz,
        headers: { 'content-type': OCTET, 'x-mitk-data-format': format },
      });
      assert.equal(viaHeader.status, 201, `${format}: ${viaHeader.text}`);
    }
  });
});

test('a corrupt, truncated or unsupported upload is 422 and leaves the scene unchanged', async () => {
  await withWorkbench({}, async (wb) => {
    const keep = await emptyNode(wb, 'keep');
    const before = await scene(wb);
    const good = imageBytes();
    const truncated = await wb.call('POST', '/datastorage/nodes?name=t', {
      body: good.slice(0, good.length - 40),
      headers: { 'content-type': OCTET, 'x-mitk-data-format': 'nrrd' },
    });
    assert.equal(truncated.status, 422);
    assert.equal(truncated.json.error.code, 'FILE_READ_ERROR');
    assert.ok(truncated.json.error.message.length > 10);
    const garbage = await wb.call('POST', '/datastorage/nodes?name=g', {
      body: 'not an image at all',
      headers: { 'content-type': OCTET, 'content-disposition': 'attachment; filename="x.nii"' },
    });
    assert.equal(garbage.status, 422);
    const unsupported = await wb.call('POST', '/datastorage/nodes?name=u', {
      body: 'solid x',
      headers: { 'content-type': OCTET, 'content-disposition': 'attachment; filename="mesh.stl"' },
    });
    // MITK's STL reader takes the file and fails on it: an exception, so 422 (LoadDataFromFile).
    assert.equal(unsupported.status, 422);
    assert.equal(unsupported.json.error.code, 'FILE_READ_ERROR');
    const putBad = await wb.call('PUT', `/datastorage/nodes/${keep}/data`, {
      body: 'junk',
      headers: { 'content-type': OCTET, 'x-mitk-data-format': 'nrrd' },
    });
    assert.equal(putBad.status, 422);
    assert.deepEqual(await scene(wb), before, 'no node was added and none changed');
  });
});

test('PUT data: direct and file-reference, 415 without a usable Content-Type, 400 without file_path, 406 for an unknown mode', async () => {
  await withTempDir(async (dir) => {
    const file = await writeImage(dir, 'seg.nrrd', smallVolume({ segmentation: true }));
    await withWorkbench({}, async (wb) => {
      const uid = await emptyNode(wb);
      const direct = await wb.call('PUT', `/datastorage/nodes/${uid}/data`, {
        body: imageBytes(),
        headers: { 'content-type': OCTET, 'content-disposition': 'attachment; filename="data.nrrd"' },
      });
      assert.equal(direct.status, 200, direct.text);
      assert.equal(direct.json.data.data_type, 'Image');
      assert.equal(direct.json.data.name, 'N', 'the name is kept');
      const ref = await wb.call('PUT', `/datastorage/nodes/${uid}/data`, {
        json: { transfer: { mode: 'file-reference', file_path: file } },
      });
      assert.equal(ref.status, 200, ref.text);
      assert.equal(ref.json.data.data_type, 'MultiLabelSegmentation');
      const color = await wb.call('GET', `/datastorage/nodes/${uid}/properties/color`);
      assert.equal(color.status, 404, 'a segmentation gets no node colour: its labels carry theirs');

      const noType = await wb.call('PUT', `/datastorage/nodes/${uid}/data`, { body: imageBytes() });
      assert.equal(noType.status, 415);
      const text = await wb.call('PUT', `/datastorage/nodes/${uid}/data`, {
        body: 'x',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(text.status, 415);
      const missing = await wb.call('PUT', `/datastorage/nodes/${uid}/data`, {
        json: { transfer: { mode: 'file-reference' } },
      });
      assert.equal(missing.status, 400);
      assert.equal(missing.json.error.message, 'Missing transfer.file_path in request body');
      assert.equal((await wb.call('PUT', `/datastorage/nodes/${uid}/data`, { json: {} })).status, 400);
      const mode = await wb.call('PUT', `/datastorage/nodes/${uid}/data`, {
        json: { transfer: { mode: 'shared-memory', file_path: file } },
      });
      assert.equal(mode.status, 406);
      assert.deepEqual(mode.json.error.available_modes, ['file-reference', 'direct']);
      assert.equal(
        (
          await wb.call('PUT', '/datastorage/nodes/ghost/data', {
            body: imageBytes(),
            headers: { 'content-type': OCTET, 'x-mitk-data-format': 'nrrd' },
          })
        ).status,
        404,
      );
    });
  });
});

test('file-reference create: 422 FILE_NOT_FOUND and 422 FILE_READ_ERROR, each leaving the scene unchanged', async () => {
  await withTempDir(async (dir) => {
    const corrupt = join(dir, 'broken.nrrd');
    await writeFile(corrupt, 'NRRD0004\ntype: short\n');
    const other = join(dir, 'notes.txt');
    await writeFile(other, 'hello');
    const good = await writeImage(dir, 'ct.nii.gz');
    await withWorkbench({}, async (wb) => {
      const before = await scene(wb);
      const cases: Array<[string, number, string]> = [
        [join(dir, 'missing.nrrd'), 422, 'FILE_NOT_FOUND'],
        // A folder is a DICOM folder to MITK; one without a DICOM image has no reader, and
        // IOUtil::Load throws for that as for a reader that fails: 422 (see load-status.test.ts).
        [dir, 422, 'FILE_READ_ERROR'],
        [corrupt, 422, 'FILE_READ_ERROR'],
        [other, 422, 'FILE_READ_ERROR'],
      ];
      for (const [path, status, code] of cases) {
        const a = await wb.call('POST', '/datastorage/nodes', { json: { name: 'x', transfer: { file_path: path } } });
        assert.equal(a.status, status, path);
        assert.equal(a.json.error.code, code, path);
      }
      assert.deepEqual(await scene(wb), before);
      const ok = await wb.call('POST', '/datastorage/nodes', {
        json: { transfer: { mode: 'file-reference', file_path: good } },
      });
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.json.data.name, 'ct', 'named after the file without .nii.gz');
      assert.equal(ok.json.data.data_type, 'Image');
    });
  });
});

test('allowed directories: paths outside, .. escapes and symlink escapes are 403 FILE_ACCESS_DENIED', async () => {
  await withTempDir(async (root) => {
    const allowed = join(root, 'allowed');
    const outside = join(root, 'outside');
    await mkdir(allowed);
    await mkdir(outside);
    const inside = await writeImage(allowed, 'in.nrrd');
    const secret = await writeImage(outside, 'secret.nrrd');
    await symlink(secret, join(allowed, 'link.nrrd'));
    await symlink(outside, join(allowed, 'linkdir'));
    await withWorkbench({ allowedDirs: [allowed] }, async (wb) => {
      const uid = await emptyNode(wb);
      const put = (file_path: string) =>
        wb.call('PUT', `/datastorage/nodes/${uid}/data`, { json: { transfer: { file_path } } });
      for (const path of [
        secret,
        join(allowed, '..', 'outside', 'secret.nrrd'),
        join(allowed, 'link.nrrd'),
        join(allowed, 'linkdir', 'secret.nrrd'),
        join(outside, 'missing.nrrd'),
      ]) {
        const a = await put(path);
        assert.equal(a.status, 403, path);
        assert.equal(a.json.error.code, 'FILE_ACCESS_DENIED', path);
      }
      const missingInside = await put(join(allowed, 'missing.nrrd'));
      assert.equal(missingInside.status, 422);
      assert.equal(missingInside.json.error.code, 'FILE_NOT_FOUND');
      assert.equal((await put(inside)).status, 200);
      const create = await wb.call('POST', '/datastorage/nodes', { json: { transfer: { file_path: secret } } });
      assert.equal(create.status, 403);

      // A detached header inside may not name a data file outside.
      await writeFile(join(outside, 'secret.raw'), Buffer.alloc(8));
      const header = (dataFile: string) =>
        `NRRD0004\ntype: short\ndimension: 3\nsizes: 2 2 1\nencoding: raw\nendian: little\ndata file: ${dataFile}\n\n`;
      await writeFile(join(allowed, 'escape.nhdr'), header('../outside/secret.raw'));
      const escape = await put(join(allowed, 'escape.nhdr'));
      assert.equal(escape.status, 403);
      assert.equal(escape.json.error.code, 'FILE_ACCESS_DENIED');
      await writeFile(join(allowed, '..data.raw'), Buffer.alloc(8));
      await writeFile(join(allowed, 'ok.nhdr'), header('..data.raw'));
      const ok = await put(join(allowed, 'ok.nhdr'));
      assert.equal(ok.status, 200, `a name starting with two dots is still inside: ${ok.text}`);
    });
  });
});

test('GET data: direct bytes with data_<uid>.nrrd, file reference as bare JSON; NO_DATA and NODE_NOT_FOUND', async () => {
  await withWorkbench({}, async (wb) => {
    const volume = smallVolume({ dims: [5, 4, 3], spacing: [0.5, 0.5, 2] });
    const up = await wb.call('POST', '/datastorage/nodes?name=CT', {
      body: imageBytes('nrrd', volume),
      headers: { 'content-type': OCTET, 'x-mitk-data-format': 'nrrd' },
    });
    const uid = up.json.data.uid;
    for (const headers of <Array<Record<string, string>>>[
      {},
      { 'x-mitk-transfer-mode': 'direct' },
      { accept: OCTET },
      { 'x-mitk-transfer-mode': 'direct', accept: 'application/json' },
    ]) {
      const a = await wb.call('GET', `/datastorage/nodes/${uid}/data`, { headers });
      assert.equal(a.status, 200);
      assert.equal(a.headers.get('content-type'), OCTET, JSON.stringify(headers));
      assert.equal(a.headers.get('content-disposition'), `attachment; filename="data_${uid}.nrrd"`);
      const back = readImageBytes(a.bytes, 'nrrd');
      assert.deepEqual(back.dims, volume.dims);
      assert.deepEqual([...back.frames[0]!], [...volume.frames[0]!]);
    }
    // An unknown mode value is ignored as the real server does (SPEC 1.2 hints at a 406): Accept decides.
    for (const headers of <Array<Record<string, string>>>[
      { 'x-mitk-transfer-mode': 'file-reference' },
      { accept: 'application/json' },
      { 'x-mitk-transfer-mode': 'bogus', accept: 'application/json' },
    ]) {
      const a = await wb.call('GET', `/datastorage/nodes/${uid}/data`, { headers });
      assert.equal(a.status, 200);
      assert.equal(a.json.data, undefined, 'bare JSON, no envelope');
      const { transfer, data_metadata } = a.json;
      assert.equal(transfer.mode, 'file-reference');
      assert.equal(transfer.file_path, join(transfer.directory_path, `data_${uid}.nrrd`));
      const bytes = await readFile(transfer.file_path);
      assert.equal(transfer.size_bytes, bytes.length);
      assert.deepEqual(readImageBytes(bytes, 'nrrd').dims, volume.dims);
      assert.deepEqual(data_metadata, {
        dimensions: [5, 4, 3],
        spacing: [0.5, 0.5, 2],
        origin: [0, 0, 0],
        pixel_type: 'short',
      });
    }
    const empty = await emptyNode(wb);
    const none = await wb.call('GET', `/datastorage/nodes/${empty}/data`);
    assert.equal(none.status, 404);
    assert.equal(none.json.error.code, 'NO_DATA');
    assert.equal(none.json.error.message, `Node '${empty}' has no data attached`);
    assert.equal((await wb.call('GET', '/datastorage/nodes/ghost/data')).json.error.code, 'NODE_NOT_FOUND');
  });
});

test('file-reference downloads: at most maxTempDirsPerIp directories per client IP, oldest evicted, all removed on stop', async () => {
  let root: string | undefined;
  const paths: string[] = [];
  await withWorkbench({ maxTempDirsPerIp: 2 }, async (wb) => {
    const up = await wb.call('POST', '/datastorage/nodes?name=CT', {
      body: imageBytes(),
      headers: { 'content-type': OCTET, 'x-mitk-data-format': 'nrrd' },
    });
    const uid = up.json.data.uid;
    for (let i = 0; i < 4; i++) {
      const a = await wb.call('GET', `/datastorage/nodes/${uid}/data`, {
        headers: { 'x-mitk-transfer-mode': 'file-reference' },
      });
      paths.push(a.json.transfer.directory_path);
    }
    assert.equal(new Set(paths).size, 4, 'one directory per download');
    assert.deepEqual(
      paths.map((p) => existsSync(p)),
      [false, false, true, true],
      'the two oldest were evicted',
    );
    assert.deepEqual([...wb.workbench.temps.active('127.0.0.1')], paths.slice(2));
    // Another client IP has its own quota (through the handler, which is where the IP is known).
    await wb.workbench.handle({
      method: 'GET',
      path: `/api/v1/datastorage/nodes/${uid}/data`,
      query: new URLSearchParams(),
      headers: { 'x-mitk-transfer-mode': 'file-reference' },
      body: new Uint8Array(0),
      clientIp: '::1',
    });
    assert.equal(wb.workbench.temps.active('::1').length, 1);
    assert.ok(existsSync(paths[3]!), "another IP's download evicts nothing of this one");
    root = wb.workbench.temps.rootDir;
    assert.ok(root && existsSync(root));
  });
  assert.ok(root !== undefined && !existsSync(root), 'the server temp directory is removed on stop');
  assert.ok(paths.every((p) => !existsSync(p)));
});
