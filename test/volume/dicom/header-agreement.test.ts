import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { readHeader } from '../../../src/volume/dicom/data-set.js';
import { isDicomFile } from '../../../src/volume/dicom/index.js';
import { FIRST_READ } from '../../../src/volume/dicom/header.js';
import { readDataSetHeader } from '../../../src/volume/dicom/scan-header.js';
import { withTempDir } from '../../helpers/workbench.js';
import { writeEnhanced } from './enhanced.js';
import { needs, referenceParts } from './reference-tools.js';
import { axial, writeSeries } from './synthetic.js';

/**
 * The scanner (synchronous) and the reader (asynchronous) read headers through one rule and
 * one parse: fed the same odd files, they agree on every one whether it is DICOM, and where
 * it is, on every element of its header.
 */
const ODD = String.raw`
import sys, os, copy
import numpy as np, pydicom
from pydicom.dataset import Dataset
src, out = sys.argv[1], sys.argv[2]
ct = pydicom.dcmread(os.path.join(src, 'CT_small.dcm'))
raw = open(os.path.join(src, 'CT_small.dcm'), 'rb').read()
def bare(name, implicit, preamble):
    ds = copy.deepcopy(ct); del ds.file_meta
    ds.preamble = ct.preamble if preamble else None
    ds.is_little_endian = True; ds.is_implicit_VR = implicit
    pydicom.dcmwrite(os.path.join(out, name), ds, write_like_original=True)
bare('bare-implicit', True, False)
bare('bare-explicit', False, False)
bare('preamble-without-meta', False, True)
open(os.path.join(out, 'preamble-cut-100'), 'wb').write(raw[:100])
open(os.path.join(out, 'preamble-cut-130'), 'wb').write(raw[:130])
open(os.path.join(out, 'header-cut-2000'), 'wb').write(raw[:2000])
open(os.path.join(out, 'pixels-cut'), 'wb').write(raw[:-1000])
open(os.path.join(out, 'empty'), 'wb').write(b'')
open(os.path.join(out, 'text.txt'), 'wb').write(b'just some words, not DICOM at all\n' * 100)
open(os.path.join(out, 'raw-eights.raw'), 'wb').write(np.full(4096, 8, '<i2').tobytes())
open(os.path.join(out, 'group8-junk'), 'wb').write(b'\x08\x00\x05\x00XYZW' + os.urandom(64))
for size in (20 * 1024, 100 * 1024):
    ds = copy.deepcopy(ct)
    ds.add_new(0x00091001, 'LO', 'PRIVATE')
    ds.add_new(0x00091010, 'OB', os.urandom(size))
    ds.save_as(os.path.join(out, 'private-%dk' % (size // 1024)))
sr = copy.deepcopy(ct); del sr.PixelData
sr.save_as(os.path.join(out, 'no-pixels'))
`;

interface Verdict {
  dicom: boolean;
  keys?: string[];
  series?: string;
}

function viaScanner(file: string): Verdict {
  const ds = readDataSetHeader(file);
  if (ds === undefined) return { dicom: false };
  return { dicom: true, keys: Object.keys(ds.elements).sort(), series: ds.string('x0020000e') };
}

async function viaReader(file: string): Promise<Verdict> {
  try {
    const { ds } = await readHeader(file);
    return { dicom: true, keys: Object.keys(ds.elements).sort(), series: ds.string('x0020000e') };
  } catch {
    return { dicom: false };
  }
}

test('the scanner and the reader agree on every odd file: what is DICOM, and its header element by element', async (t) => {
  const parts = referenceParts();
  if (!needs(t, parts.missing)) return;
  await withTempDir(async (dir) => {
    execFileSync(parts.python!, ['-c', ODD, parts.files!, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    for (const name of ['CT_small.dcm', 'image_dfl.dcm', 'MR_small_bigendian.dcm', 'MR_small_implicit.dcm'])
      await copyFile(join(parts.files!, name), join(dir, name));
    await writeFile(join(dir, 'picture.png'), readFileSync(new URL('../../../docs/report.png', import.meta.url)));
    // An enhanced object whose functional groups fill more than the first read.
    const series = join(dir, 'frames');
    await mkdir(series);
    const slices = axial(400, { intercept: -1024, rows: 2, columns: 2 });
    writeSeries(parts.python!, series, slices);
    writeEnhanced(parts.python!, { sources: slices.map((s) => join(series, s.name)), out: join(dir, 'enhanced.dcm') });
    execFileSync('rm', ['-r', series]);

    const expected: Record<string, boolean> = {
      'CT_small.dcm': true,
      'image_dfl.dcm': true,
      'MR_small_bigendian.dcm': true,
      'MR_small_implicit.dcm': true,
      'bare-implicit': true,
      'bare-explicit': true,
      'preamble-without-meta': true,
      'private-20k': true,
      'private-100k': true,
      'enhanced.dcm': true,
      'pixels-cut': true,
      'no-pixels': true,
      'preamble-cut-100': false,
      'preamble-cut-130': false,
      'header-cut-2000': false,
      empty: false,
      'text.txt': false,
      'raw-eights.raw': false,
      'group8-junk': false,
      'picture.png': false,
    };
    const names = readdirSync(dir).sort();
    assert.deepEqual(names, Object.keys(expected).sort());
    for (const name of names) {
      const file = join(dir, name);
      const scanner = viaScanner(file);
      const reader = await viaReader(file);
      assert.deepEqual(reader, scanner, `${name}: the reader and the scanner disagree`);
      assert.equal(scanner.dicom, expected[name], `${name}: DICOM is ${scanner.dicom}`);
      // The cheap test a load makes first says no to no file the parse takes.
      if (scanner.dicom) assert.ok(await isDicomFile(file), `${name}: isDicomFile`);
    }
    // The odd headers are what they claim: past the first read (and past 64 KiB), yet read to their pixel data.
    const pixelTag = Buffer.from([0xe0, 0x7f, 0x10, 0x00]);
    assert.ok(readFileSync(join(dir, 'private-100k')).indexOf(pixelTag) > 64 * 1024);
    assert.ok(readFileSync(join(dir, 'enhanced.dcm')).indexOf(pixelTag) > FIRST_READ);
    for (const name of ['private-100k', 'enhanced.dcm'])
      assert.ok(viaScanner(join(dir, name)).keys!.includes('x7fe00010'), name);
  });
});
