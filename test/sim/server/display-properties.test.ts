import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withWorkbench } from '../../helpers/workbench.js';
import { axial, patch, property, ramp, setLevelWindow, upload } from './display-view.js';

// Grey levels are worked out by hand from MITK's level-window filter: a value v in a window
// lower..upper takes entry trunc((v - lower) * 256 / (upper - lower) + 1/2) of the 256 greys,
// clamped to 0..255; below the window is black, above it white.

const greys = (g: number): number[] => [g, g, g];

test("a new image has the image mapper's default properties, in MITK's JSON forms", async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await upload(wb, ramp());
    const res = await wb.call('GET', `/datastorage/nodes/${uid}/properties`);
    const p = res.json.data.properties;
    assert.equal(p['texture interpolation'], false);
    assert.deepEqual(p['reslice interpolation'], { type: 'VtkResliceInterpolationProperty', value: 'Nearest' });
    assert.deepEqual(p['Image Rendering.Mode'], {
      type: 'RenderingModeProperty',
      value: 'LookupTable_LevelWindow_Color',
    });
    assert.equal(p.binary, false);
    assert.equal(p['outline binary'], false);
    assert.equal(p['outline width'], 1);
    assert.equal(p['outline shadow width'], 1.5);
    assert.deepEqual(p['outline binary shadow color'], { type: 'ColorProperty', value: [0, 0, 0] });
    assert.deepEqual(p.color, { type: 'ColorProperty', value: [1, 1, 1] });
    assert.equal(p.opacity, 1);
    // The grey table: 256 entries i / 255, built with a linear ramp over 0..1.
    const lut = p.LookupTable;
    assert.equal(lut.type, 'LookupTableProperty');
    assert.deepEqual(
      { ...lut.value, Table: undefined },
      {
        AlphaRange: [1, 1],
        HueRange: [0, 0],
        NumberOfColors: 256,
        Ramp: 1,
        SaturationRange: [0, 0],
        Scale: 0,
        Table: undefined,
        TableRange: [0, 1],
        ValueRange: [0, 1],
      },
    );
    assert.deepEqual(lut.value.Table[0], [0, 0, 0, 1]);
    assert.deepEqual(lut.value.Table[51], [0.2, 0.2, 0.2, 1]);
    assert.deepEqual(lut.value.Table[255], [1, 1, 1, 1]);
    // The automatic level window of 0..252 in steps of 4: the range widened by 15 % each way,
    // the window from the second smallest to the second largest value (few extremes).
    assert.deepEqual(p.levelwindow, {
      type: 'LevelWindowProperty',
      value: {
        CurrentRange: { Max: 289.8, Min: -37.8 },
        CurrentSettings: { Level: 126, Window: 244 },
        DefaultSettings: { Level: 126, Window: 244 },
        Fixed: false,
        IsFloatingImage: false,
      },
    });
    const raw = await wb.call('GET', `/datastorage/nodes/${uid}/properties/levelwindow`);
    assert.match(raw.text, /"CurrentSettings":\{"Level":126\.0,"Window":244\.0\}/, 'floats are written as floats');
  });
});

test('a ramp through a narrow and a wide level window: the grey levels of the linear map', async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await upload(wb, ramp());
    await wb.call('POST', '/rendering/reinit', { json: {} });
    // Narrow: 96..160. Voxel i holds 4·i.
    await setLevelWindow(wb, uid, 128, 64);
    let at = await axial(wb);
    assert.deepEqual(at(10), greys(0), '40, below the window: black');
    assert.deepEqual(at(24), greys(0), '96, the lower bound: entry trunc(0.5) = 0');
    assert.deepEqual(at(25), greys(16), '100: trunc(16.5)');
    assert.deepEqual(at(32), greys(128), '128, the level: trunc(128.5)');
    assert.deepEqual(at(39), greys(240), '156: trunc(240.5)');
    assert.deepEqual(at(40), greys(255), '160, the upper bound: trunc(256.5) clamped');
    assert.deepEqual(at(50), greys(255), '200, above: white');
    // Wide: -384..640.
    await setLevelWindow(wb, uid, 128, 1024);
    at = await axial(wb);
    assert.deepEqual(at(0), greys(96), '0: trunc(384 / 4 + 0.5)');
    assert.deepEqual(at(32), greys(128), '128: trunc(512 / 4 + 0.5)');
    assert.deepEqual(at(63), greys(159), '252: trunc(636 / 4 + 0.5)');
    // The whole state reads back as MITK stores it: the window widened the range.
    assert.deepEqual(((await property(wb, uid, 'levelwindow')) as { value: unknown }).value, {
      CurrentRange: { Max: 640, Min: -384 },
      CurrentSettings: { Level: 128, Window: 1024 },
      DefaultSettings: { Level: 126, Window: 244 },
      Fixed: false,
      IsFloatingImage: false,
    });
  });
});

test('a level window per render window (context) applies to that window only', async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await upload(wb, ramp());
    await setLevelWindow(wb, uid, 128, 64, '?context=stdmulti.widget0');
    const at = await axial(wb);
    assert.deepEqual(at(25), greys(16), 'the axial window (stdmulti.widget0) uses its own window');
    const other = await wb.call('GET', `/datastorage/nodes/${uid}/properties/levelwindow`);
    assert.deepEqual(other.json.data.levelwindow.value.CurrentSettings, { Level: 126, Window: 244 });
  });
});

test("a lookup table changes the colours: MITK's rainbow table at known values, its own range without the level window", async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await upload(wb, ramp());
    await setLevelWindow(wb, uid, 128, 256); // 0..256
    // MITK's "Legacy Rainbow Color" table: hue from 0.6667 (blue) down to 0 (red), full
    // saturation and value, linear ramp. Entry 0 is blue (0, 0.0001, 1) -> (0, 0, 255); entry
    // 255 red; entry 128 at hue 0.6667 - 128 * 0.6667 / 255 = 0.33206, just below a third:
    // green 1, red (1/3 - 0.33206) * 6 = 0.00762 -> 2.
    const table = Array.from({ length: 256 }, (_, i) => {
      const h = 0.6667 - (i * 0.6667) / 255;
      return hsv(h);
    });
    const lut = {
      type: 'LookupTableProperty',
      value: {
        NumberOfColors: 256,
        Scale: 0,
        Ramp: 0,
        HueRange: [0.6667, 0],
        ValueRange: [1, 1],
        SaturationRange: [1, 1],
        AlphaRange: [1, 1],
        TableRange: [0, 20],
        Table: table.map((c) => [...c.map((x) => Math.floor(x * 255 + 0.5) / 255), 1]),
      },
    };
    assert.equal((await wb.call('PUT', `/datastorage/nodes/${uid}/properties/LookupTable`, { json: lut })).status, 200);
    let at = await axial(wb);
    assert.deepEqual(at(0), [0, 0, 255], 'value 0: entry 0');
    assert.deepEqual(at(32), [2, 255, 0], 'value 128: entry trunc(128.5) = 128');
    // Entry 252: hue 0.6667 · 3 / 255 = 0.00784, red with green 6 · 0.00784 = 0.047 -> 12.
    assert.deepEqual(at(63), [255, 12, 0], 'value 252: entry 252, nearly red');
    // LookupTable_Color: no level window; the table's own range 0..20 spans the colours.
    await patch(wb, uid, '{"Image Rendering.Mode": {"type": "RenderingModeProperty", "value": "LookupTable_Color"}}');
    at = await axial(wb);
    assert.deepEqual(at(0), [0, 0, 255], 'value 0');
    assert.deepEqual(at(10), [255, 0, 0], 'value 40, above 20: the last entry');
  });
});

/** vtkMath::HSVToRGB at full saturation and value, for hues from 0 to 2/3. */
function hsv(h: number): [number, number, number] {
  if (h > 1 / 6 && h <= 1 / 3) return [(1 / 3 - h) * 6, 1, 0];
  if (h > 1 / 3 && h <= 0.5) return [0, 1, (h - 1 / 3) * 6];
  if (h > 0.5 && h <= 2 / 3) return [0, (2 / 3 - h) * 6, 1];
  if (h > 2 / 3) return [(h - 2 / 3) * 6, 0, 1];
  return [1, h * 6, 0];
}

test('texture interpolation blends neighbouring texels; linear reslicing changes nothing at the voxel centres of the slice shown', async () => {
  await withWorkbench({}, async (wb) => {
    // Alternating 0 and 252 columns (the last 128, so that MITK does not take the image for a
    // binary one); the level window 0..256 keeps them at grey 0 and 252.
    const uid = await upload(
      wb,
      ramp((i) => (i === 63 ? 128 : i % 2 === 0 ? 0 : 252)),
    );
    await setLevelWindow(wb, uid, 128, 256);
    // Four pixels per millimetre: column 32 + 4·(i - 31.5) - 2 shows the point halfway
    // between voxel centres i - 1 and i... nearest shows one texel or the other.
    let at = await axial(wb, 4);
    assert.deepEqual(at(32), greys(0), 'voxel 32 (value 0), nearest');
    assert.deepEqual(at(33), greys(252), 'voxel 33 (value 252), nearest');
    await patch(wb, uid, '{"texture interpolation": true}');
    at = await axial(wb, 4);
    // Column floor((32 - 31.5) * 4 + 32) = 34, whose centre is at x = 32.125: an eighth of the
    // way from voxel 32 (grey 0) to voxel 33 (grey 252): 31.5.
    const mid = at(32)[0]!;
    assert.ok(mid === 31 || mid === 32, `filtered between texels: ${mid}`);
    await patch(wb, uid, '{"reslice interpolation": {"type": "VtkResliceInterpolationProperty", "value": "Linear"}}');
    assert.deepEqual((await property(wb, uid, 'reslice interpolation')) as unknown, {
      type: 'VtkResliceInterpolationProperty',
      value: 'Linear',
    });
  });
});

test('a binary image is drawn through the binary table in its colour: 0 transparent, 1 red at opacity 0.3', async () => {
  await withWorkbench({}, async (wb) => {
    const background = await upload(
      wb,
      ramp(() => 0),
      'Background',
    );
    await patch(
      wb,
      background,
      '{"binary": false, "opacity": 1.0, "color": {"type": "ColorProperty", "value": [1.0, 1.0, 1.0]}}',
    );
    await setLevelWindow(wb, background, -100, 2); // value 0 above the window: white
    const mask = await upload(
      wb,
      ramp((i) => (i < 32 ? 0 : 1)),
      'Mask',
    );
    const p = (await wb.call('GET', `/datastorage/nodes/${mask}/properties`)).json.data.properties;
    assert.equal(p.binary, true, "two values: MITK's binary guess");
    assert.equal(p.opacity, 0.3);
    assert.deepEqual(p.color, { type: 'ColorProperty', value: [1, 0, 0] });
    const at = await axial(wb);
    assert.deepEqual(at(10), greys(255), 'value 0: the binary table is transparent there');
    // Value 1 takes the last entry (white) in red at 0.3 over white: (255, 0.7 · 255, 0.7 · 255),
    // 178.5 in exact arithmetic, just below it in the renderer's single precision.
    assert.deepEqual(at(40), [255, 178, 178]);
  });
});

test('a lookup table sent with "Ramp": 1 is stored with a log10 scale, as MITK reads it; values then map on a log scale', async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await upload(
      wb,
      ramp((i) => i + 1),
    );
    const lut = (await property(wb, uid, 'LookupTable')) as { value: Record<string, unknown> };
    const put = await wb.call('PUT', `/datastorage/nodes/${uid}/properties/LookupTable`, { json: lut });
    assert.equal(put.status, 200);
    // LookupTableProperty::FromJSON sets the scale from "Ramp" and never sets the ramp.
    const back = (await property(wb, uid, 'LookupTable')) as { value: Record<string, unknown> };
    assert.equal(back.value.Scale, 1);
    assert.equal(back.value.Ramp, 0);
    // Level window 1..64 on a log scale: value 8 is half way (log 8 = log 64 / 2): entry 128.
    await setLevelWindow(wb, uid, 32.5, 63);
    const at = await axial(wb);
    assert.deepEqual(at(7), greys(128), 'value 8: trunc((log 8 - log 1) * 256 / log 64) = 128');
    assert.deepEqual(at(0), greys(0), 'value 1: entry 0');
  });
});

test('the transfer-function modes draw through the colour transfer function, linear between its points, without the level window', async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await upload(wb, ramp());
    await setLevelWindow(wb, uid, 10, 4); // would make nearly everything white, were it used
    await patch(
      wb,
      uid,
      JSON.stringify({
        'Image Rendering.Transfer Function': {
          type: 'TransferFunctionProperty',
          value: {
            ScalarOpacity: [
              [0, 1],
              [252, 1],
            ],
            GradientOpacity: [],
            Color: [
              [0, 0, 0, 1, 0.5, 0],
              [252, 1, 0, 0, 0.5, 0],
            ],
          },
        },
        'Image Rendering.Mode': { type: 'RenderingModeProperty', value: 'ColorTransferFunction_LevelWindow_Color' },
      }),
    );
    const at = await axial(wb);
    assert.deepEqual(at(0), [0, 0, 255], 'value 0: the first point, blue');
    assert.deepEqual(at(63), [255, 0, 0], 'value 252: the last point, red');
    // Value 128: 128/252 of the way from blue to red, about (130, 0, 125); the function is
    // sampled at 4096 points, so a byte either way.
    const [r, g, b] = at(32);
    assert.ok(Math.abs(r! - 130) <= 1 && g === 0 && Math.abs(b! - 125) <= 1, `${r}, ${g}, ${b}`);
  });
});
