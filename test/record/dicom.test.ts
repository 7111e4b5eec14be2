// wbplay record of an image MITK read from DICOM: the recorded playbook loads the series again
// (a file of it, as MITK was given one) instead of a downloaded NRRD, and runs on a fresh
// workbench to the same pixels.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { decodePng } from '../../src/image/png-decode.js';
import { recordWorkbench } from '../../src/record/recorder.js';
import { DICOM_CT_DIR, writeDemoDicom } from '../../src/sim/demo-dicom.js';
import { wbplay } from '../helpers/cohort.js';
import { startTestWorkbench } from '../helpers/workbench.js';

test('a node read from DICOM is recorded as a load of its series and replays to the same pixels', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-record-dicom-'));
  const live = await startTestWorkbench();
  const fresh = await startTestWorkbench();
  t.after(async () => {
    await Promise.all([live.stop(), fresh.stop()]);
    await rm(dir, { recursive: true, force: true });
  });
  await writeDemoDicom(join(dir, 'data'));
  const series = join(dir, 'data', DICOM_CT_DIR);
  const slice = join(series, (await readdir(series)).sort()[7]!);
  const wb = connect({ url: live.url });
  t.after(() => wb.close());
  const { node } = await wb.nodes.create({ file: slice, transfer: 'file-reference', name: 'CT' });
  await wb.display.setLevelWindow(node.uid, { level: 60, window: 300 });
  await wb.rendering.reinit();
  // Through the tumour, and off the centre: after a reinit the crosshair sits on the border of
  // two axial slices of this even slice count.
  await wb.rendering.setSelectedPosition([56, 52, 36]);

  const playbook = join(dir, 'rec', 'recorded.yaml');
  const recording = await recordWorkbench(wb, { playbook, dataDir: join(dir, 'rec', 'data'), url: live.url });
  assert.deepEqual(recording.warnings, []);
  assert.match(
    recording.text,
    new RegExp(`- load: \\{ file: "\\.\\./data/${DICOM_CT_DIR}/IM0000[0-9]\\.dcm", as: ct, name: "CT"`),
  );
  assert.deepEqual(await readdir(join(dir, 'rec', 'data')), ['layout.json'], 'no image was downloaded for it');
  await writeFile(playbook, recording.text);

  const run = await wbplay(
    ['run', playbook, '--url', fresh.url, '--out', join(dir, 'replayed'), '--reporter', 'line'],
    dir,
  );
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const copy = connect({ url: fresh.url });
  t.after(() => copy.close());
  const [replayed] = await copy.nodes.list({ hierarchy: 'all' });
  const lw = (await copy.properties.get(replayed!.uid, 'levelwindow', { scope: 'node' })) as {
    value: { CurrentSettings: { Level: number; Window: number } };
  };
  assert.deepEqual(lw.value.CurrentSettings, { Level: 60, Window: 300 });
  for (const id of ['axial', 'sagittal'] as const) {
    const [a, b] = await Promise.all([copy.stdmulti.window(id).screenshot(), wb.stdmulti.window(id).screenshot()]);
    const [pa, pb] = await Promise.all([decodePng(a.bytes), decodePng(b.bytes)]);
    assert.ok(Buffer.from(pa.data).equals(Buffer.from(pb.data)), `${id}: the same pixels`);
  }
  const events = fresh.events.entries.filter((e) => e.transfer !== undefined);
  assert.deepEqual(
    events.map((e) => e.transfer),
    ['file-reference'],
    'the replay loaded the series by reference',
  );
  assert.ok((await readFile(playbook, 'utf8')).includes('level_window'));
});
