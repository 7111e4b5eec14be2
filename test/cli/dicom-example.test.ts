// playbooks/dicom.yaml as a user runs it: one case per series of the demo DICOM tree, each
// series loaded from one of its files whatever its name, two screenshots each, and reports that
// name no patient.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeDemoDicom } from '../../src/sim/demo-dicom.js';
import { decodePng } from '../../src/image/png-decode.js';
import { root, wbplay } from '../helpers/cohort.js';

test('the DICOM example runs one case per series of the demo tree and its reports name no patient', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-dicom-example-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const demo = join(dir, 'demo');
  await writeDemoDicom(demo);
  const out = join(dir, 'out');
  const r = await wbplay(
    ['run', join(root, 'playbooks', 'dicom.yaml'), '--out', out, '--reporter', 'line,json,junit'],
    dir,
    {
      WBPLAY_DEMO: demo,
    },
  );
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr + r.stdout, /PASSED 5 cases: 5 passed/);
  const cases = (await readdir(out, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  assert.deepEqual(cases.map((c) => c.replace(/^[0-9a-f]{10}-/, '').replace(/-[0-9a-f]{6}$/, '')).sort(), [
    'CT2',
    'CT2',
    'CT3',
    'CT4',
    'MR1',
  ]);
  for (const c of cases) {
    assert.deepEqual((await readdir(join(out, c))).sort(), ['axial.png', 'coronal.png']);
    const png = await decodePng(new Uint8Array(await readFile(join(out, c, 'axial.png'))));
    let lit = 0;
    for (let i = 0; i < png.data.length; i += 4) if (png.data[i]! > 40) lit++;
    assert.ok(lit > png.width * png.height * 0.2, `${c}: the image shows in its axial screenshot`);
  }
  for (const report of ['report.json', 'junit.xml']) {
    const text = await readFile(join(out, report), 'utf8');
    assert.ok(!/DEMO00|Demo\^Patient|Patient One|2024\d{4}/.test(text), `${report} names no patient or date`);
  }
});
