import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, WorkbenchUsageError, type WorkbenchClient } from '../../src/client/index.js';
import {
  COLORMAPS,
  colormapOf,
  colormapProperty,
  lookupTableOf,
  type Colormap,
} from '../../src/client/lookup-tables.js';
import { encodePropertyValue, propertyKeyProblem } from '../../src/client/property-classes.js';
import { toJson } from '../../src/client/json-body.js';
import { envelope, ScriptedServer } from '../helpers/scripted-server.js';
import { withWorkbench, type TestWorkbench } from '../helpers/workbench.js';
import { axial, ramp, upload } from '../sim/server/display-view.js';

async function withClient(fn: (client: WorkbenchClient, wb: TestWorkbench) => Promise<void>): Promise<void> {
  await withWorkbench({}, async (wb) => {
    const client = connect({ url: wb.url });
    try {
      await fn(client, wb);
    } finally {
      await client.close();
    }
  });
}

test('a preset sets exactly its level and window; the level window reads back whole, as MITK keeps it', async () => {
  await withClient(async (client, wb) => {
    const uid = await upload(wb, ramp());
    const before = await client.display.levelWindow(uid);
    assert.deepEqual(before.default, { level: 126, window: 244 }, 'the automatic window of the ramp');
    const liver = await client.display.setLevelWindow(uid, 'Liver');
    assert.equal(liver.level, 30);
    assert.equal(liver.window, 400);
    assert.deepEqual(liver.range, { min: -170, max: 289.8 }, 'the window reached below the range and widened it');
    assert.deepEqual(liver.default, before.default, 'the default stays');
    const own = await client.display.setLevelWindow(uid, { level: 128, window: 64 });
    assert.deepEqual([own.level, own.window], [128, 64]);
    await assert.rejects(client.display.setLevelWindow(uid, { level: 0, window: 0 }), WorkbenchUsageError);
    await assert.rejects(
      client.display.setLevelWindow(uid, 'liver' as never),
      (err: Error) => err instanceof WorkbenchUsageError && /presets \(Air, Blood/.test(err.message),
    );
  });
});

test('a level window per window: read in that context (falling back to the node’s), written there only', async () => {
  await withClient(async (client, wb) => {
    const uid = await upload(wb, ramp());
    const axialWindow = client.stdmulti.window('axial');
    await client.display.setLevelWindow(uid, { level: 128, window: 64 }, { context: axialWindow.context });
    assert.equal((await client.display.levelWindow(uid, { context: axialWindow.context })).window, 64);
    assert.equal((await client.display.levelWindow(uid)).window, 244, 'the node’s own level window is untouched');
    const pixel = await axial(wb);
    assert.deepEqual(pixel(25), [16, 16, 16], '100 in 96..160: entry trunc(16.5)');
  });
});

test('a colour map is sent as the table MITK builds for it and changes the pixels to its colours', async () => {
  await withClient(async (client, wb) => {
    const uid = await upload(wb, ramp());
    await client.display.setLevelWindow(uid, { level: 128, window: 256 }); // 0..256: value v takes entry v
    const written = await client.display.setColormap(uid, 'Legacy Rainbow Color');
    assert.deepEqual(written.kept, []);
    const state = await client.display.colormap(uid);
    assert.equal(state.name, 'Legacy Rainbow Color');
    assert.equal(state.mode, 'LookupTable_LevelWindow_Color');
    assert.equal(state.colours.scale, 0, 'sent so that the workbench keeps a linear scale');
    const pixel = await axial(wb);
    // Entry 0: hue 0.6667, blue; entry 128: hue 0.33206, green with red (1/3 - 0.33206)·6 ->
    // 2/255; entry 252: red with green 6·0.00784 -> 12/255.
    assert.deepEqual(pixel(0), [0, 0, 255]);
    assert.deepEqual(pixel(32), [2, 255, 0]);
    assert.deepEqual(pixel(63), [255, 12, 0]);
    await client.display.setColormap(uid, 'Grayscale');
    assert.equal((await client.display.colormap(uid)).name, 'Grayscale');
    assert.deepEqual((await axial(wb))(32), [128, 128, 128]);
  });
});

test('floats stay floats on the wire: opacity 1 is sent as 1.0, the level window’s numbers as floats', async () => {
  const srv = await ScriptedServer.start();
  const client = connect({ url: srv.url });
  try {
    srv.on('PATCH', '/api/v1/datastorage/nodes/n1/properties', envelope({ updated: ['opacity', 'count'], failed: [] }));
    srv.on('GET', '/api/v1/datastorage/nodes/n1/properties', envelope({ properties: { opacity: 1, count: 1 } }));
    await client.display.setProperties('n1', { opacity: 1, count: 1 });
    assert.equal(srv.requests[0]!.body.toString(), '{"opacity":1.0,"count":1}');
    // A level window is read, changed and written back with every number a float.
    const lw = {
      CurrentRange: { Min: -1024, Max: 3071 },
      CurrentSettings: { Level: 40, Window: 400 },
      DefaultSettings: { Level: 40, Window: 400 },
      Fixed: false,
      IsFloatingImage: false,
    };
    srv.reset();
    srv.on(
      'GET',
      '/api/v1/datastorage/nodes/n1/properties/levelwindow',
      envelope({ levelwindow: { type: 'LevelWindowProperty', value: lw } }),
    );
    srv.on('PUT', '/api/v1/datastorage/nodes/n1/properties/levelwindow', envelope({}));
    await client.display.setLevelWindow('n1', { level: 50, window: 350 });
    const put = srv.requests.find((r) => r.method === 'PUT')!;
    assert.equal(
      put.body.toString(),
      '{"type":"LevelWindowProperty","value":{"CurrentRange":{"Min":-1024.0,"Max":3071.0},"CurrentSettings":{"Level":50.0,"Window":350.0},"DefaultSettings":{"Level":40.0,"Window":400.0},"Fixed":false,"IsFloatingImage":false}}',
    );
  } finally {
    await client.close();
    await srv.close();
  }
});

test('a value the workbench kept at its old one (another class stored) is reported, not passed over', async () => {
  await withClient(async (client, wb) => {
    const uid = await upload(wb, ramp());
    await client.properties.set(uid, 'my.float', { type: 'FloatProperty', value: 0.5 });
    const result = await client.display.setProperties(uid, {
      'my.float': 2,
      opacity: 0.25,
      'texture interpolation': true,
    });
    assert.deepEqual(result.updated.sort(), ['my.float', 'opacity', 'texture interpolation']);
    assert.deepEqual(result.kept, [{ property: 'my.float', sent: 2, stored: 0.5 }]);
    const typed = await client.display.setProperties(uid, { 'my.float': { type: 'FloatProperty', value: 2 } });
    assert.deepEqual(typed.kept, [], 'the typed form names the class');
  });
});

test('property values are checked and encoded by the class MITK keeps them in', () => {
  const wire = (key: string, value: unknown): string => {
    const e = encodePropertyValue(key, value);
    assert.ok(e.ok, JSON.stringify(e));
    return toJson(e.wire);
  };
  const problem = (key: string, value: unknown): string => {
    const e = encodePropertyValue(key, value);
    assert.ok(!e.ok, `${key} should be refused`);
    return e.problem;
  };
  assert.equal(wire('opacity', 1), '1.0');
  assert.equal(wire('outline width', 2), '2.0');
  assert.equal(wire('layer', 3), '3');
  assert.equal(wire('unknown.count', 3), '3', 'a whole number for an unknown key: MITK infers an IntProperty');
  assert.equal(wire('unknown.ratio', 0.5), '0.5');
  assert.equal(wire('color', [1, 0, 0]), '{"type":"ColorProperty","value":[1.0,0.0,0.0]}');
  assert.equal(wire('reslice interpolation', 'Linear'), '{"type":"VtkResliceInterpolationProperty","value":"Linear"}');
  assert.equal(wire('x', { type: 'DoubleProperty', value: 1 }), '{"type":"DoubleProperty","value":1.0}');
  assert.match(problem('opacity', '0.5'), /number/);
  assert.match(problem('layer', 1.5), /whole number/);
  assert.match(problem('Image Rendering.Mode', 'LookupTable_Colour'), /did you mean `LookupTable_Color`/);
  assert.match(problem('x', { type: 'FlotProperty', value: 1 }), /did you mean `FloatProperty`/);
  assert.match(problem('opacity', { type: 'IntProperty', value: 1 }), /FloatProperty in MITK/);
  assert.match(problem('x', [1, 2]), /bare list/);
  assert.match(problem('levelwindow', 40), /level_window/);
  assert.equal(propertyKeyProblem('fine.key'), undefined);
  assert.match(propertyKeyProblem('restapi.uid')!, /restapi/);
  assert.match(propertyKeyProblem('a\nb')!, /control/);
  assert.match(propertyKeyProblem('k'.repeat(257))!, /256/);
});

test("the colour maps are MITK's ramp tables, recognised entry for entry", () => {
  assert.deepEqual(COLORMAPS, [
    'Grayscale',
    'Inverse Grayscale',
    'Legacy Binary',
    'Legacy Rainbow Color',
    'PET Black/White',
  ]);
  const rgba = (table: number[][], i: number): number[] => table[i]!.map((c) => Math.round(c * 255));
  const grey = lookupTableOf({
    value: { Table: Array.from({ length: 256 }, (_, i) => [i / 255, i / 255, i / 255, 1]), TableRange: [0, 1] },
  })!;
  assert.equal(colormapOf(grey), 'Grayscale');
  grey.table[0] = [0, 0, 0, 0];
  assert.equal(colormapOf(grey), 'Legacy Binary', 'the binary table: grey with entry 0 transparent');
  grey.table[1] = [0, 0, 0, 0];
  assert.equal(colormapOf(grey), null);
  // Inverse grey keeps VTK's S-curve ramp and fades alpha with the grey: entry 0 white and
  // opaque, entry 255 black and transparent.
  const inverse = sentTable('Inverse Grayscale');
  assert.deepEqual(rgba(inverse, 0), [255, 255, 255, 255]);
  assert.deepEqual(rgba(inverse, 255), [0, 0, 0, 0]);
  const pet = sentTable('PET Black/White');
  assert.deepEqual(rgba(pet, 0), [255, 255, 255, 255], 'entry 0 set white by hand');
  assert.deepEqual(rgba(pet, 1), [254, 254, 254, 255], 'then the value falls from 1: 1 - 1/255');
});

/** A colour map's table as the client sends it: entries over 255. */
function sentTable(name: Colormap): number[][] {
  const table = colormapProperty(name).value.Table as Array<Array<{ value: number }>>;
  return table.map((e) => e.map((c) => c.value));
}
