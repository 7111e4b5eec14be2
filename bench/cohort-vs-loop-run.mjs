// One side of the cohort-vs-loop benchmark, in a process of its own on the built package,
// imported by its name as a user's script does (`wbplay/client`, `wbplay`).
// Plain JavaScript so that Node runs it as it is: a TypeScript loader would add its own start-up
// and module hooks to the process the benchmark measures.
//
//   node cohort-vs-loop-run.mjs loop   <url> <data dir> <out dir>
//   node cohort-vs-loop-run.mjs wbplay <url> <data dir> <out dir>
//
// `loop` is the script a user writes instead of adopting wbplay: per study load the CT, load
// the segmentation under it, reinit, set the position and the 3D camera, save the four window
// screenshots with fs.writeFile, remove both nodes; no bookkeeping. `wbplay` runs the cohort
// playbook through runPlans with the console's line reporter (to a sink) and no report files.
// Both print one JSON line: the time inside HTTP exchanges (summed over exchanges, as the
// client saw them), the span from the first exchange's start to the last one's end, and when
// the first exchange started (ms since the process started).
import { subscribe } from 'node:diagnostics_channel';
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const [mode, url, dataDir, outDir] = process.argv.slice(2);

// Every exchange from its request's creation to the last byte of its answer (undici's channels).
const open = new Map();
let busy = 0;
let exchanges = 0;
let first = Infinity;
let last = 0;
subscribe('undici:request:create', ({ request }) => {
  const now = performance.now();
  if (now < first) first = now;
  open.set(request, now);
});
const done = ({ request }) => {
  const start = open.get(request);
  if (start === undefined) return;
  open.delete(request);
  const now = performance.now();
  busy += now - start;
  exchanges++;
  last = now;
};
subscribe('undici:request:trailers', done);
subscribe('undici:request:error', done);

/** studies.csv as the demo data writes it: a header, then plain comma-separated values. */
async function studies() {
  const [header, ...rows] = (await readFile(join(dataDir, 'studies.csv'), 'utf8')).trim().split('\n');
  const keys = header.split(',');
  return rows.map((row) => Object.fromEntries(row.split(',').map((v, i) => [keys[i], v])));
}

async function loop() {
  const { connect } = await import('wbplay/client');
  const client = connect({ url });
  try {
    for (const s of await studies()) {
      const ct = await client.nodes.create({ file: join(dataDir, s.path, 'ct.nrrd'), name: 'ct' });
      const tumour = await client.nodes.create({
        file: join(dataDir, s.path, 'tumour-label.nrrd'),
        name: 'tumour',
        parent: ct.node.uid,
        // The colour and opacity as MITK's property JSON, the body wbplay's load sends.
        properties: {
          opacity: { value: 0.6 },
          color: { type: 'ColorProperty', value: [{ value: 1 }, { value: 0.3 }, { value: 0.2 }] },
        },
      });
      await client.rendering.reinit([ct.node.uid]);
      await client.rendering.setSelectedPosition([Number(s.tumour_x), Number(s.tumour_y), Number(s.tumour_z)]);
      await client.stdmulti.window('3d').setCamera({ standard_view: 'anterior' });
      const dir = join(outDir, s.name);
      await mkdir(dir, { recursive: true });
      for (const w of ['axial', 'sagittal', 'coronal', '3d']) {
        const shot = await client.stdmulti.window(w).screenshot();
        await writeFile(join(dir, `${w}.png`), shot.bytes);
      }
      await client.nodes.remove(tumour.node.uid);
      await client.nodes.remove(ct.node.uid);
    }
    return { passed: (await studies()).length };
  } finally {
    await client.close();
  }
}

async function wbplay() {
  const { createReporters, loadPlaybook, runPlans } = await import('wbplay');
  const plan = loadPlaybook(join(dataDir, 'cohort.yaml'), { vars: { out: join(outDir, 'shots') } });
  const reporter = createReporters(['line'], {
    outputDir: outDir,
    stream: { write: () => true },
    isTTY: false,
    env: {},
  });
  const result = await runPlans({
    plans: [plan],
    workbenches: { urls: [url] },
    reporter,
    outputDir: outDir,
    force: true,
  });
  return { passed: result.summary.passed };
}

const result = mode === 'loop' ? await loop() : await wbplay();
process.stdout.write(`${JSON.stringify({ ...result, busy, exchanges, span: last - first, first })}\n`);
