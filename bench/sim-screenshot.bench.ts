import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PNG } from 'pngjs';
import { writeDemoData } from '../src/sim/demo-data.js';
import { startReferenceWorkbench } from '../src/sim/server.js';

const RUNS = 30;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function ok(res: Response): Promise<Buffer> {
  const body = Buffer.from(await res.arrayBuffer());
  if (!res.ok) throw new Error(`${res.status} ${body.toString('utf8')}`);
  return body;
}

/**
 * Screenshot of the 512x512 axial window of the CT phantom, end to end over HTTP, against
 * PNG-encoding the same pixels with pngjs alone; the 4-view application window; and the
 * request rate of the cheapest rendering GET (server overhead).
 */
export default async function bench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-bench-'));
  await writeDemoData(dir);
  const wb = await startReferenceWorkbench({ open: [join(dir, 'ct.nrrd')] });
  const api = `${wb.url}/api/v1/rendering`;
  const get = async (path: string): Promise<Buffer> => ok(await fetch(api + path));
  const put = async (path: string, body: unknown): Promise<Buffer> =>
    ok(
      await fetch(api + path, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
  try {
    const axial = '/editors/stdmulti/windows/axial/screenshot';
    const camera = '/editors/stdmulti/windows/axial/camera';
    const fitted = JSON.parse((await get(camera)).toString('utf8')) as { parallel_scale: number };
    // Alternating zoom changes the state before every grab, so nothing comes from the cache.
    const zoom = (i: number) => put(camera, { parallel_scale: fitted.parallel_scale * (i % 2 === 0 ? 1 : 1.01) });
    for (let i = 0; i < 5; i++) await zoom(i).then(() => get(axial));
    const putOnly = await timed(RUNS, zoom);
    const putAndGrab = await timed(RUNS, (i) => zoom(i).then(() => get(axial)));
    const fresh = Math.max(0, putAndGrab - putOnly);
    const cached = await timed(RUNS, () => get(axial));

    const png = PNG.sync.read(await get(axial));
    const encode = await timed(RUNS, async () => PNG.sync.write(png, { colorType: 2 }));

    const app = '/screenshot';
    await get(app);
    const app3d = '/editors/stdmulti/windows/3d/camera';
    const appFresh = Math.max(
      0,
      (await timed(10, (i) => put(app3d, { perspective_angle: i % 2 === 0 ? 30 : 31 }).then(() => get(app)))) -
        (await timed(10, (i) => put(app3d, { perspective_angle: i % 2 === 0 ? 30 : 31 }))),
    );
    const appCached = await timed(10, () => get(app));

    const position = `${api}/selected-position`;
    const total = 2000;
    const concurrency = 8;
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < total) await ok(await fetch(position));
      }),
    );
    const rps = total / ((performance.now() - t0) / 1000);

    console.log(`axial 512x512 screenshot, fresh state: ${fresh.toFixed(1)} ms median`);
    console.log(`pngjs encode of the same pixels:      ${encode.toFixed(1)} ms median`);
    console.log(
      `ratio fresh/encode:                   ${(fresh / encode).toFixed(2)} (target <= 1.5: renderer + server <= 0.5 of encode)`,
    );
    console.log(
      `axial screenshot, unchanged state:    ${cached.toFixed(2)} ms median (${(cached / encode).toFixed(2)} of encode, cached image)`,
    );
    console.log(
      `application window (4-view StdMulti): ${appFresh.toFixed(1)} ms median fresh, ${appCached.toFixed(2)} ms cached`,
    );
    console.log(`GET /rendering/selected-position:     ${rps.toFixed(0)} requests/s (${concurrency} concurrent)`);
  } finally {
    await wb.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
