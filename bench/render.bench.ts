// The software renderer alone: a 512x512 axial window of a 96x96x32 CT-like volume with a
// label image on top and the crosshair, and the 3D window of the same scene, against pngjs
// PNG-encoding the same pixels in the same process. Target: 2D render <= 0.3x of the encode.
import { PNG } from 'pngjs';
import { renderView } from '../src/sim/render/index.js';
import type { RenderLayer, RgbaImage, View2D, View3D } from '../src/sim/render/types.js';
import { IDENTITY, worldBounds, type Vec3, type Volume } from '../src/volume/volume.js';

const RUNS = 31;
const SIZE = 512;

/** A body ellipse with an inner blob and a bright spine, at 1 x 1 x 2.5 mm, as the NB06 volume. */
function volumes(): { ct: Volume; label: Volume } {
  const dims: Vec3 = [96, 96, 32];
  const ct = new Float32Array(96 * 96 * 32);
  const label = new Float32Array(ct.length);
  for (let k = 0; k < 32; k++) {
    for (let j = 0; j < 96; j++) {
      for (let i = 0; i < 96; i++) {
        const at = i + 96 * (j + 96 * k);
        const body = ((i - 48) / 40) ** 2 + ((j - 48) / 30) ** 2 < 1;
        const tumour = (i - 60) ** 2 + (j - 45) ** 2 + ((k - 16) * 2.5) ** 2 < 64;
        ct[at] = body ? (tumour ? 120 : 40 + ((i * 7 + j * 3 + k) % 11)) : -1000;
        if ((i - 48) ** 2 + (j - 70) ** 2 < 25) ct[at] = 900;
        label[at] = tumour ? 1 : 0;
      }
    }
  }
  const base = {
    dims,
    spacing: [1, 1, 2.5] as Vec3,
    origin: [0, 0, 0] as Vec3,
    direction: IDENTITY,
    timeStepMs: 1,
    timeOriginMs: 0,
    componentType: 'int16',
  };
  return {
    ct: { ...base, frames: [ct], range: [-1000, 900] },
    label: {
      ...base,
      frames: [label],
      range: [0, 1],
      componentType: 'uint16',
      segmentation: {
        groups: [
          {
            name: '',
            labels: [
              { value: 1, name: 'tumour', color: [1, 0.3, 0.2], opacity: 1, visible: true, locked: true, extra: {} },
            ],
            extra: {},
            frames: [label],
          },
        ],
        unlabeledLock: false,
      },
    },
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function time(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function encode(image: RgbaImage): Buffer {
  const png = new PNG({ width: image.width, height: image.height });
  png.data = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
  return PNG.sync.write(png, { colorType: 2 });
}

export default async function bench(): Promise<void> {
  const { ct, label } = volumes();
  const bounds = worldBounds(ct);
  const centre: Vec3 = [47.5, 47.5, 38.75];
  const layers: RenderLayer[] = [
    { uid: 'ct', volume: ct, timeStep: 0, opacity: 1, color: null, levelWindow: { level: 50, window: 500 }, layer: 0 },
    {
      uid: 'label',
      volume: label,
      timeStep: 0,
      opacity: 0.6,
      color: null,
      levelWindow: { level: 0.5, window: 1 },
      layer: 1,
    },
  ];
  const axial: View2D = {
    kind: '2d',
    width: SIZE,
    height: SIZE,
    viewDirection: 'axial',
    planeNormal: [0, 0, 1],
    planePoint: centre,
    camera: {
      position: [47.5, 47.5, -500],
      focal_point: centre,
      view_up: [0, -1, 0],
      parallel_scale: 48,
      perspective_angle: null,
    },
    crosshair: [
      { planeNormal: [1, 0, 0], planePoint: centre, color: [0, 1, 0] },
      { planeNormal: [0, 1, 0], planePoint: centre, color: [0, 0, 1] },
    ],
    background: [0, 0, 0],
  };
  const threeD: View3D = {
    kind: '3d',
    width: SIZE,
    height: SIZE,
    camera: {
      position: [200, -160, 180],
      focal_point: centre,
      view_up: [0, 0, 1],
      parallel_scale: null,
      perspective_angle: 30,
    },
    planes: [
      { planeNormal: [0, 0, 1], planePoint: centre, color: [1, 0, 0] },
      { planeNormal: [1, 0, 0], planePoint: centre, color: [0, 1, 0] },
      { planeNormal: [0, 1, 0], planePoint: centre, color: [0, 0, 1] },
    ],
    bounds,
    background: [0, 0, 0],
  };

  const image2d = renderView(axial, layers);
  const samples = { encode: [] as number[], render2d: [] as number[], render3d: [] as number[] };
  // One warm-up round, then the three interleaved so that a busy moment hits all alike.
  for (let run = 0; run <= RUNS; run++) {
    const e = time(() => encode(image2d));
    const r2 = time(() => renderView(axial, layers));
    const r3 = time(() => renderView(threeD, layers));
    if (run === 0) continue;
    samples.encode.push(e);
    samples.render2d.push(r2);
    samples.render3d.push(r3);
  }
  const base = median(samples.encode);
  const row = (name: string, ms: number): string => `| ${name} | ${ms.toFixed(2)} | ${(ms / base).toFixed(3)} |`;
  console.log(`median of ${RUNS} runs, ${SIZE}x${SIZE} windows of a 96x96x32 CT-like volume with a label image on top`);
  console.log('| what | ms | ratio to pngjs encode |');
  console.log('| --- | ---: | ---: |');
  console.log(row('pngjs encode (baseline)', base));
  console.log(row('renderView axial 2D (target <= 0.3)', median(samples.render2d)));
  console.log(row('renderView 3D', median(samples.render3d)));
}
