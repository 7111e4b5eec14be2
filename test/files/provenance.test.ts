// A figure's provenance names its playbook and inputs without the machine's folders, so the same
// playbook and data give the same bytes in any checkout folder, on Windows as on Linux.
import assert from 'node:assert/strict';
import { posix, win32 } from 'node:path';
import { test } from 'node:test';
import { encodeRenderPng } from '../../src/image/png-encode.js';
import {
  portableProvenance,
  readProvenance,
  stampProvenance,
  type FigureProvenance,
} from '../../src/files/provenance.js';

function made(root: string, join: (...parts: string[]) => string): FigureProvenance {
  return {
    playbook: join(root, 'playbooks', 'figure.yaml'),
    playbookSha256: 'ab',
    step: '3: figure',
    inputs: {
      [join(root, 'playbooks', 'data', 'ct.nrrd')]: '01',
      [join(root, 'elsewhere', 'mr.nrrd')]: '02',
      [join(root, 'other', 'mr.nrrd')]: '03',
    },
    version: '0.1.0',
  };
}

test('the same figure in two checkout folders, on Windows and on Linux, has one provenance', () => {
  const expected = {
    playbook: 'figure.yaml',
    playbookSha256: 'ab',
    step: '3: figure',
    inputs: { 'data/ct.nrrd': '01', 'mr.nrrd': '02', 'mr.nrrd (2)': '03' },
    version: '0.1.0',
  };
  assert.deepEqual(portableProvenance(made('/home/a/checkout', posix.join), posix), expected);
  assert.deepEqual(portableProvenance(made('/builds/b/wbplay', posix.join), posix), expected);
  assert.deepEqual(portableProvenance(made('C:\\Users\\a\\checkout', win32.join), win32), expected);
  assert.deepEqual(portableProvenance(made('D:\\a\\wbplay', win32.join), win32), expected);
});

test('provenance written on one platform reads back the same on the other', async () => {
  const written = portableProvenance(made('C:\\work', win32.join), win32);
  const png = stampProvenance(encodeRenderPng({ width: 1, height: 1, data: new Uint8Array(4) }, true), written);
  assert.deepEqual(readProvenance(png), written);
});
