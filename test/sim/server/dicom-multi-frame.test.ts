import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { readImageBytes } from '../../../src/volume/read-image.js';
import { withTempDir, withWorkbench } from '../../helpers/workbench.js';
import { parseGdcmInfo, writeEnhanced } from '../../volume/dicom/enhanced.js';
import { needs, referenceParts } from '../../volume/dicom/reference-tools.js';
import { writeSeries, type SynthSlice } from '../../volume/dicom/synthetic.js';

/**
 * An enhanced multi-frame CT loaded into the reference workbench, by file reference and by
 * upload: the node's image has GDCM's geometry (held to gdcminfo), its rescaled values and
 * MITK's properties.
 */
const c = Math.cos(Math.PI / 6);
const s = Math.sin(Math.PI / 6);
const slices: SynthSlice[] = Array.from({ length: 4 }, (_, i) => ({
  name: `o${i}`,
  position: [3 - 2 * s * i, -4 + 2 * c * i, 20],
  orientation: [c, s, 0, 0, 0, -1],
  instance: i + 1,
  value: 100 * (i + 1),
  intercept: -1024,
  studyDescription: 'Thorax',
  seriesDescription: 'Enhanced',
}));

test('an oblique enhanced CT by file reference and by upload: GDCM geometry, rescaled values, name and no level window from its Frame VOI LUT', async (t) => {
  const parts = referenceParts(['gdcminfo']);
  if (!needs(t, parts.missing)) return;
  await withTempDir(async (dir) => {
    const series = join(dir, 'series');
    await mkdir(series);
    writeSeries(parts.python!, series, slices);
    const file = join(dir, 'enhanced.dcm');
    writeEnhanced(parts.python!, {
      sources: slices.map((x) => join(series, x.name)),
      out: file,
      rescale: 'shared',
      perFrameOrientation: true,
      voi: [40, 400],
    });
    const info = parseGdcmInfo(execFileSync('gdcminfo', [file], { encoding: 'utf8' }));
    await withWorkbench({}, async (wb) => {
      const byReference = await wb.call('POST', '/datastorage/nodes', { json: { transfer: { file_path: file } } });
      const byUpload = await wb.call('POST', '/datastorage/nodes', {
        body: await readFile(file),
        headers: { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="e.dcm"' },
      });
      for (const created of [byReference, byUpload]) {
        assert.equal(created.status, 201, created.text);
        assert.equal(created.json.data.name, 'Thorax / Enhanced');
        const uid = created.json.data.uid;
        const data = await wb.call('GET', `/datastorage/nodes/${uid}/data`);
        const volume = readImageBytes(data.bytes, 'nrrd');
        assert.deepEqual(volume.dims, info.dimensions);
        volume.origin.forEach((v, i) => assert.ok(Math.abs(v - info.origin[i]!) < 1e-4, `origin ${volume.origin}`));
        volume.spacing.forEach((v, i) => assert.ok(Math.abs(v - info.spacing[i]!) < 1e-4, `spacing ${volume.spacing}`));
        const d = volume.direction;
        [d[0], d[3], d[6], d[1], d[4], d[7]].forEach((v, i) =>
          assert.ok(Math.abs(v - info.cosines[i]!) < 1e-4, `directions ${d}`),
        );
        const plane = volume.dims[0] * volume.dims[1];
        assert.deepEqual(
          [0, 1, 2, 3].map((k) => volume.frames[0]![k * plane]),
          [100, 200, 300, 400].map((v) => v - 1024),
        );
        const props = await wb.call(
          'GET',
          `/datastorage/nodes/${uid}/properties?property_scope=data&names=levelwindow,DICOM.0008.0060`,
        );
        assert.equal(props.status, 200, props.text);
        assert.equal(props.json.data.properties.levelwindow, undefined);
        assert.deepEqual(props.json.data.properties['DICOM.0008.0060'], {
          type: 'TemporoSpatialStringProperty',
          value: { values: [{ z: 0, t: 0, value: 'CT' }] },
        });
      }
    });
  });
});
