// Names of files in reports, provenance and recorded playbooks are the same on Windows and Linux:
// each case runs with both path modules, whatever the platform the tests run on.
import assert from 'node:assert/strict';
import { posix, win32 } from 'node:path';
import { test } from 'node:test';
import { localPath, portableLink, portablePath } from '../../src/files/portable-path.js';

test('a file inside the project is named from its root with / on both platforms', () => {
  assert.equal(portablePath('/home/ana/proj', '/home/ana/proj/playbooks/a.yaml', posix), 'playbooks/a.yaml');
  assert.equal(portablePath('C:\\work\\proj', 'C:\\work\\proj\\playbooks\\a.yaml', win32), 'playbooks/a.yaml');
  assert.equal(portablePath('C:\\work\\proj', 'c:\\work\\proj\\goldens\\x.png', win32), 'goldens/x.png');
  assert.equal(portablePath('/home/ana/proj', '/home/ana/proj', posix), '.');
  // A file whose name starts with two dots is still inside.
  assert.equal(portablePath('C:\\proj', 'C:\\proj\\..hidden\\x.png', win32), '..hidden/x.png');
});

test('a file outside the project keeps its absolute path, with / on Windows too', () => {
  assert.equal(portablePath('/home/ana/proj', '/data/ct.nrrd', posix), '/data/ct.nrrd');
  assert.equal(portablePath('C:\\work\\proj', 'C:\\data\\ct.nrrd', win32), 'C:/data/ct.nrrd');
  assert.equal(portablePath('C:\\work\\proj', 'D:\\data\\ct.nrrd', win32), 'D:/data/ct.nrrd');
  assert.equal(portablePath('C:\\proj', '\\\\server\\share\\ct.nrrd', win32), '//server/share/ct.nrrd');
});

test('names read back to the same file on the platform that reads them', () => {
  for (const [base, file] of [
    ['C:\\work\\proj', 'C:\\work\\proj\\playbooks\\a.yaml'],
    ['C:\\work\\proj', 'D:\\data\\ct.nrrd'],
    ['C:\\proj', '\\\\server\\share\\ct.nrrd'],
  ] as const) {
    assert.equal(localPath(base, portablePath(base, file, win32), win32), file);
    assert.equal(localPath(base, portableLink(base, file, win32), win32), file);
  }
  for (const [base, file] of [
    ['/home/ana/proj', '/home/ana/proj/playbooks/a.yaml'],
    ['/home/ana/proj', '/data/ct.nrrd'],
  ] as const) {
    assert.equal(localPath(base, portablePath(base, file, posix), posix), file);
    assert.equal(localPath(base, portableLink(base, file, posix), posix), file);
  }
  // A name written on Linux is read on Windows inside the project it names, and the other way round.
  assert.equal(
    localPath('C:\\proj', portablePath('/proj', '/proj/goldens/a.png', posix), win32),
    'C:\\proj\\goldens\\a.png',
  );
  assert.equal(
    localPath('/proj', portablePath('C:\\proj', 'C:\\proj\\goldens\\a.png', win32), posix),
    '/proj/goldens/a.png',
  );
});

test('a link goes through .. where it must, and is absolute only across drives', () => {
  assert.equal(portableLink('C:\\proj\\out\\merged', 'C:\\proj\\out\\shard-1\\a.png', win32), '../shard-1/a.png');
  assert.equal(portableLink('/proj/out/merged', '/proj/out/shard-1/a.png', posix), '../shard-1/a.png');
  assert.equal(portableLink('C:\\proj', 'D:\\data\\ct.nrrd', win32), 'D:/data/ct.nrrd');
  assert.equal(portableLink('C:\\proj\\out', 'artefacts\\c\\x.png', win32), 'artefacts/c/x.png');
});
