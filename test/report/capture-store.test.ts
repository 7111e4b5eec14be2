// The live page's capture store: an image is kept once under the hash of its bytes, the same
// pixels with other text chunks count as the same picture, a diff marks what changed, files
// that are not PNG or JPEG are not kept, and keepOnly removes what no run shows any more.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { addPngText } from '../../src/image/png-text.js';
import { encodeRenderPng } from '../../src/image/png-encode.js';
import { filled } from '../../src/image/pixels.js';
import { CAPTURES_DIR, CaptureStore } from '../../src/report/capture-store.js';

test('images are kept once by their bytes and compared by their pixels', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-captures-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const store = new CaptureStore(dir);
  const grey = encodeRenderPng(filled(8, 6, [0.5, 0.5, 0.5]), true);
  const stamped = addPngText(grey, { playbook: 'edited' });
  const white = encodeRenderPng(filled(8, 6, [1, 1, 1]), true);

  const a = (await store.put(grey))!;
  assert.equal((await store.put(grey))!.file, a.file, 'the same bytes, the same file');
  const b = (await store.put(stamped))!;
  assert.notEqual(b.file, a.file, 'other bytes, another file');
  assert.equal(b.pixels, a.pixels, 'but the same picture');
  assert.deepEqual([a.width, a.height], [8, 6]);
  const c = (await store.put(white))!;
  assert.notEqual(c.pixels, a.pixels);
  assert.deepEqual(await readFile(store.path(a)), Buffer.from(grey));
  assert.ok((await store.diff(c, a))!.file.startsWith(`${CAPTURES_DIR}/`), 'the changed pixels as an image');

  assert.equal(await store.put(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>')), undefined);
  assert.equal(await store.putFile(join(dir, 'missing.png')), undefined);

  await store.keepOnly(new Set([a.file]));
  assert.deepEqual(await readdir(join(dir, CAPTURES_DIR)), [a.file.slice(CAPTURES_DIR.length + 1)]);
  const again = (await store.put(white))!;
  assert.deepEqual(await readFile(store.path(again)), Buffer.from(white), 'a removed image is written again');
});
