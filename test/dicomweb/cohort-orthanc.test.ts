// A cohort straight from a real archive: Orthanc with its DICOMweb plugin holds the demo DICOM
// tree, and `foreach: dicomweb` must give what `foreach: dicom` gives over the same files (the
// same cases, names and pixels); results go back into the archive with STOW-RS, once. Faults
// between wbplay and the archive come from a proxy: resets, a part that is not DICOM, a dead
// port, a refused login. Each run is the CLI as a user starts it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { RunResultTree } from '../../src/result/result.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { writeDemoDicom } from '../../src/sim/demo-dicom.js';
import { differingPixels, pixels, spawnWbplay, wbplay, type CliResult } from '../helpers/cohort.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { deadPort } from '../helpers/net.js';
import { startTestWorkbench } from '../helpers/workbench.js';
import { connect } from '../../src/client/index.js';
import { recordWorkbench } from '../../src/record/recorder.js';
import { decodePng } from '../../src/image/png-decode.js';
import { orthancSkip, startOrthanc, type Orthanc } from '../helpers/orthanc.js';
import { needs, PYTHON, run } from '../helpers/tools.js';
import { dciodvfyErrors, needsDciodvfy } from '../helpers/dciodvfy.js';

const skip = await orthancSkip();
let dir = '';
let orthanc: Orthanc;
let proxy: FaultProxy;

const STEPS = `steps:
  - load: { file: "\${study.path}", as: image }
  - reinit: { nodes: [image] }
  - screenshot: { of: stdmulti/axial, save: "\${out}/\${study.name}/axial.png", width: 96, height: 96 }
`;

/** The same playbook over a folder or an archive. */
function playbook(source: string): string {
  return `version: 1\nname: Archive cohort\nforeach:\n  ${source}\n${STEPS}`;
}

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    DICOMWEB_USER: orthanc.user,
    DICOMWEB_PASSWORD: orthanc.password,
    XDG_CACHE_HOME: join(dir, 'cache'),
    PACS: proxy.url,
    ...extra,
  };
}

async function report(out: string): Promise<RunResultTree> {
  return JSON.parse(await readFile(join(dir, out, 'report.json'), 'utf8')) as RunResultTree;
}

function explain(r: CliResult): string {
  return `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
}

/** Every file under a folder, recursively. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

async function qido(path: string): Promise<Record<string, { Value?: unknown[] }>[]> {
  const auth = Buffer.from(`${orthanc.user}:${orthanc.password}`).toString('base64');
  const res = await fetch(`${orthanc.dicomweb}${path}`, {
    headers: { authorization: `Basic ${auth}`, accept: 'application/dicom+json' },
  });
  if (res.status === 204) return [];
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  return (await res.json()) as Record<string, { Value?: unknown[] }>[];
}

/** The body of a multipart answer's first part. */
function firstPart(body: Buffer, contentType: string): Buffer {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  assert.ok(boundary, contentType);
  const start = body.indexOf('\r\n\r\n', body.indexOf(`--${boundary}`)) + 4;
  return body.subarray(start, body.indexOf(`\r\n--${boundary}`, start));
}

describe('foreach: dicomweb against a real Orthanc', { skip, timeout: 600_000 }, () => {
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wbplay-pacs-'));
    await writeDemoData(join(dir, 'data'));
    await writeDemoDicom(join(dir, 'data'));
    orthanc = await startOrthanc();
    const tree = (await filesUnder(join(dir, 'data', 'dicom-studies'))).sort();
    await orthanc.push(tree);
    proxy = await startFaultProxy(orthanc.dicomweb);
    await writeFile(join(dir, 'local.yaml'), playbook('dicom: data/dicom-studies'));
    await writeFile(join(dir, 'pacs.yaml'), playbook('dicomweb: ${env.PACS}\n  where: { PatientID: "DEMO*" }'));
  });

  after(async () => {
    await proxy?.close();
    await orthanc?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('gives the cases, names and capture pixels foreach: dicom gives over the same files', async () => {
    const local = await wbplay(['run', 'local.yaml', '--out', 'out-local', '--reporter', 'line'], dir, env());
    assert.equal(local.code, 0, explain(local));
    const pacs = await wbplay(['run', 'pacs.yaml', '--out', 'out-pacs', '--reporter', 'line'], dir, env());
    assert.equal(pacs.code, 0, explain(pacs));
    const names = (r: RunResultTree): string[] => r.cases.map((c) => c.id).sort();
    const fromFolder = names(await report('out-local'));
    assert.ok(fromFolder.length >= 5, fromFolder.join(', '));
    assert.deepEqual(names(await report('out-pacs')), fromFolder);
    for (const name of fromFolder) {
      const a = await pixels(join(dir, 'out-local', name, 'axial.png'));
      const b = await pixels(join(dir, 'out-pacs', name, 'axial.png'));
      assert.equal(differingPixels(a, b), 0, `${name}: the archive's capture differs from the folder's`);
    }
    // The series came through WADO-RS, once each.
    const series = proxy.requests.filter((r) => r.method === 'GET' && /\/series\/[\d.]+$/.test(r.path.split('?')[0]!));
    assert.equal(series.length, fromFolder.length);
  });

  test('a rerun finds every case up to date and retrieves nothing', async () => {
    const before = proxy.requests.length;
    const again = await wbplay(['run', 'pacs.yaml', '--out', 'out-pacs', '--reporter', 'line'], dir, env());
    assert.equal(again.code, 0, explain(again));
    const r = await report('out-pacs');
    assert.equal(r.summary.upToDate, r.cases.length);
    const retrievals = proxy.requests
      .slice(before)
      .filter((q) => /\/series\/[\d.]+(\/instances\/[\d.]+)?$/.test(q.path.split('?')[0]!));
    assert.deepEqual(retrievals, []);
  });

  test('a cohort interrupted and resumed: the cases done are up to date and not retrieved again', async () => {
    const child = spawnWbplay(
      ['run', 'pacs.yaml', '--out', 'out-resume', '--reporter', 'line'],
      dir,
      env({ XDG_CACHE_HOME: join(dir, 'cache-resume-1') }),
    );
    let seen = '';
    await new Promise<void>((resolve) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        // The first case has passed: stop the run there.
        if (/ passed in /.test(seen) && !child.killed) {
          child.kill('SIGTERM');
          resolve();
        }
      });
      child.on('exit', () => resolve());
    });
    const code = await new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) resolve(child.exitCode);
      else child.on('exit', (c) => resolve(c));
    });
    assert.equal(code, 143, seen);
    const before = proxy.requests.length;
    // Another cache: whatever the first run left there cannot hide a retrieval.
    const resumed = await wbplay(
      ['run', 'pacs.yaml', '--out', 'out-resume', '--reporter', 'line'],
      dir,
      env({ XDG_CACHE_HOME: join(dir, 'cache-resume-2') }),
    );
    assert.equal(resumed.code, 0, explain(resumed));
    const r = await report('out-resume');
    const upToDate = r.summary.upToDate ?? 0;
    assert.ok(upToDate >= 1 && upToDate < r.cases.length, `${upToDate} of ${r.cases.length} up to date`);
    const retrieved = new Set(
      proxy.requests
        .slice(before)
        .map((q) => /\/studies\/[\d.]+\/series\/([\d.]+)(?:\/instances\/[\d.]+)?$/.exec(q.path.split('?')[0]!)?.[1])
        .filter((uid) => uid !== undefined),
    );
    assert.equal(retrieved.size, r.cases.length - upToDate, 'only the cases still to run were retrieved');
  });

  test('store puts the captures back into the source study, pixels exact, and a rerun stores nothing twice', async () => {
    await writeFile(
      join(dir, 'store.yaml'),
      `version: 1
name: Store back
foreach:
  dicomweb: \${env.PACS}
  where: { Modality: CT, PatientID: "DEMO*" }
${STEPS}  - store:
      dicomweb: \${env.PACS}
      images: ["\${out}/\${study.name}/axial.png"]
      series_description: wbplay axial
`,
    );
    const first = await wbplay(['run', 'store.yaml', '--out', 'out-store', '--reporter', 'line'], dir, env());
    assert.equal(first.code, 0, explain(first));
    const count = await orthanc.instanceCount();
    const stored = (await report('out-store')).cases;
    assert.ok(stored.length >= 1);
    for (const c of stored) {
      const png = await pixels(join(dir, 'out-store', c.id, 'axial.png'));
      // Its study's series now include ours: Secondary Capture, modality OT.
      const studies = await qido(`/studies?includefield=0020000D`);
      let found = false;
      for (const s of studies) {
        const study = String(s['0020000D']?.Value?.[0]);
        for (const series of await qido(`/studies/${study}/series?SeriesDescription=wbplay*axial`)) {
          const uid = String(series['0020000E']?.Value?.[0]);
          const instances = await qido(`/studies/${study}/series/${uid}/instances`);
          for (const inst of instances) {
            const sop = String(inst['00080018']?.Value?.[0]);
            const file = join(dir, `sc-${sop}.dcm`);
            const auth = Buffer.from(`${orthanc.user}:${orthanc.password}`).toString('base64');
            const res = await fetch(`${orthanc.root}/dicom-web/studies/${study}/series/${uid}/instances/${sop}`, {
              headers: { authorization: `Basic ${auth}`, accept: 'multipart/related; type="application/dicom"' },
            });
            await writeFile(
              file,
              firstPart(Buffer.from(await res.arrayBuffer()), res.headers.get('content-type') ?? ''),
            );
            if (needs('gdcmconv') === false) {
              run('gdcmconv', ['--raw', file, `${file}.raw`]);
              run('gdcmraw', ['-i', `${file}.raw`, '-o', `${file}.bin`]);
              const raw = await readFile(`${file}.bin`);
              const rgb = Buffer.alloc(png.width * png.height * 3);
              for (let i = 0; i < png.width * png.height; i++) png.data.copy(rgb, i * 3, i * 4, i * 4 + 3);
              if (rgb.equals(raw.subarray(0, rgb.length))) found = true;
            }
          }
        }
      }
      if (needs('gdcmconv') === false) assert.ok(found, `${c.id}: no stored instance holds the capture's pixels`);
    }
    const again = await wbplay(
      ['run', 'store.yaml', '--out', 'out-store', '--force', '--reporter', 'line'],
      dir,
      env(),
    );
    assert.equal(again.code, 0, explain(again));
    assert.equal(await orthanc.instanceCount(), count, 'a rerun stored instances again');
  });

  test('store puts a segmentation back as DICOM SEG on the source series: pydicom, GDCM and dciodvfy accept it', async () => {
    await orthanc.push(await filesUnder(join(dir, 'data', 'dicom', 'ct')));
    await writeFile(
      join(dir, 'seg.yaml'),
      `version: 1
name: Segmentation back
foreach:
  dicomweb: \${env.PACS}
  where: { PatientID: DEMO000, Modality: CT }
steps:
  - load: { file: "\${study.path}", as: ct }
  - load: { file: data/tumour-label.nrrd, as: tumour, parent: ct }
  - store: { dicomweb: "\${env.PACS}", node: tumour, series_description: wbplay tumour }
`,
    );
    const r = await wbplay(['run', 'seg.yaml', '--out', 'out-seg', '--reporter', 'line'], dir, env());
    assert.equal(r.code, 0, explain(r));
    const [study] = await qido('/studies?PatientID=DEMO000');
    const studyUid = String(study?.['0020000D']?.Value?.[0]);
    const [series] = await qido(`/studies/${studyUid}/series?SeriesDescription=wbplay*tumour`);
    assert.ok(series, 'the SEG series is in the source study');
    assert.equal(series['00080060']?.Value?.[0], 'SEG');
    const seriesUid = String(series['0020000E']?.Value?.[0]);
    const [instance] = await qido(`/studies/${studyUid}/series/${seriesUid}/instances`);
    const sop = String(instance?.['00080018']?.Value?.[0]);
    const auth = Buffer.from(`${orthanc.user}:${orthanc.password}`).toString('base64');
    const res = await fetch(`${orthanc.dicomweb}/studies/${studyUid}/series/${seriesUid}/instances/${sop}`, {
      headers: { authorization: `Basic ${auth}`, accept: 'multipart/related; type="application/dicom"' },
    });
    const file = join(dir, 'seg.dcm');
    await writeFile(file, firstPart(Buffer.from(await res.arrayBuffer()), res.headers.get('content-type') ?? ''));
    if (needs('pydicom') === false) {
      const script = [
        'import sys, pydicom',
        'd = pydicom.dcmread(sys.argv[1])',
        'refs = {r.ReferencedSOPInstanceUID for s in d.ReferencedSeriesSequence for r in s.ReferencedInstanceSequence}',
        'print(d.Modality, d.SegmentSequence[0].SegmentLabel, len(refs), d.StudyInstanceUID == sys.argv[2], sep="|")',
      ].join('\n');
      const [modality, label, refs, sameStudy] = run(PYTHON, ['-c', script, file, studyUid]).trim().split('|');
      assert.equal(modality, 'SEG');
      assert.ok(label && label.length > 0);
      assert.equal(Number(refs), 32, 'it references the source series, all 32 slices');
      assert.equal(sameStudy, 'True');
    }
    if (needs('gdcmdump') === false) run('gdcminfo', [file]);
    const dciodvfy = needsDciodvfy();
    if (dciodvfy === false) assert.deepEqual(dciodvfyErrors(file), []);
    // Stored once: a rerun adds nothing.
    const count = await orthanc.instanceCount();
    const again = await wbplay(['run', 'seg.yaml', '--out', 'out-seg', '--force', '--reporter', 'line'], dir, env());
    assert.equal(again.code, 0, explain(again));
    assert.equal(await orthanc.instanceCount(), count);
  });

  test('wbplay record writes a node loaded from the cache as the archive series it came from, and it replays', async (t) => {
    const cacheRoot = join(dir, 'cache', 'wbplay', 'dicomweb');
    const manifests = (await filesUnder(cacheRoot)).filter((f) => f.endsWith('.json')).sort();
    assert.ok(manifests.length > 0, 'the cohort left series in the cache');
    const manifest = JSON.parse(await readFile(manifests[0]!, 'utf8')) as {
      url: string;
      study: string;
      series: string;
    };
    assert.equal(manifest.url, proxy.url);
    const folder = manifests[0]!.replace(/\.json$/, '');
    const live = await startTestWorkbench();
    const fresh = await startTestWorkbench();
    const wb = connect({ url: live.url });
    t.after(async () => {
      await wb.close();
      await Promise.all([live.stop(), fresh.stop()]);
    });
    const first = join(folder, (await readdir(folder)).sort()[0]!);
    const { node } = await wb.nodes.create({ file: first, transfer: 'file-reference', name: 'from the archive' });
    await wb.rendering.reinit();
    // Off the border of two slices, where a reinit of an even slice count leaves the crosshair.
    await wb.rendering.setSelectedPosition([56, 52, 36]);
    const playbook = join(dir, 'rec', 'recorded.yaml');
    const recording = await recordWorkbench(wb, {
      playbook,
      dataDir: join(dir, 'rec', 'data'),
      url: live.url,
      cacheRoot,
    });
    assert.match(
      recording.text,
      new RegExp(
        `- load: \\{ dicomweb: \\{ url: "${manifest.url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}", study: "${manifest.study}", series: "${manifest.series}" \\}`,
      ),
    );
    assert.ok(!recording.text.includes(cacheRoot), 'the cache is not named');
    await writeFile(playbook, recording.text);
    const replay = await wbplay(
      ['run', playbook, '--url', fresh.url, '--out', join(dir, 'replayed'), '--reporter', 'line'],
      dir,
      env({ XDG_CACHE_HOME: join(dir, 'cache-2') }),
    );
    assert.equal(replay.code, 0, explain(replay));
    // The replay's own capture of the axial window against the live workbench's.
    const shot = await wb.stdmulti.window('axial').screenshot();
    const a = await pixels(join(dir, 'replayed', 'stdmulti-axial.png'));
    const b = await decodePng(shot.bytes);
    assert.equal(differingPixels(a, { ...b, data: Buffer.from(b.data) }), 0, 'the replayed axial view differs');
    assert.ok(node.uid);
  });

  test('a part that is not DICOM fails its case, naming the instance by its hash; the other cases run', async () => {
    const [mr] = await qido('/series?Modality=MR&includefield=0020000D');
    const series = String(mr?.['0020000E']?.Value?.[0]);
    const escaped = series.replaceAll('.', '\\.');
    const junk = Buffer.from('this is not a DICOM file\n');
    // The series answer's first part, and then that instance's own answer, every time it is asked.
    proxy.fault({ kind: 'replace-part', index: 0, body: junk, method: 'GET', path: new RegExp(`/series/${escaped}$`) });
    proxy.fault({
      kind: 'replace-part',
      index: 0,
      body: junk,
      method: 'GET',
      path: new RegExp(`/series/${escaped}/instances/[\\d.]+$`),
      times: 10,
    });
    const r = await wbplay(
      ['run', 'pacs.yaml', '--out', 'out-junk', '--reporter', 'line', '--retries', '1'],
      dir,
      env({ XDG_CACHE_HOME: join(dir, 'cache-junk') }),
    );
    assert.equal(r.code, 1, explain(r));
    const cases = (await report('out-junk')).cases;
    const bad = cases.filter((c) => c.status !== 'passed');
    assert.equal(bad.length, 1, explain(r));
    assert.equal(bad[0]!.study?.name ?? bad[0]!.id, bad[0]!.id);
    const error = bad[0]!.steps.find((s) => s.error)?.error;
    assert.equal(error?.code, 'NOT_DICOM', JSON.stringify(error));
    assert.match(error?.message ?? '', /uid:[0-9a-f]{8}/);
    assert.ok(cases.length - bad.length >= 4, 'the other cases ran and passed');
  });

  test('--trace writes the archive exchanges without query values and with UIDs shortened to their hash', async () => {
    const r = await wbplay(
      ['run', 'pacs.yaml', '--out', 'out-trace', '--reporter', 'line', '--trace'],
      dir,
      env({ XDG_CACHE_HOME: join(dir, 'cache-trace') }),
    );
    assert.equal(r.code, 0, explain(r));
    const text = await readFile(join(dir, 'out-trace', 'dicomweb-trace.jsonl'), 'utf8');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { path: string; query: string[]; method: string });
    assert.ok(
      lines.some((l) => l.method === 'GET' && /^\/studies\/uid:[0-9a-f]{8}\/series\/uid:[0-9a-f]{8}$/.test(l.path)),
    );
    assert.ok(
      lines.some((l) => l.query.includes('PatientID')),
      'query parameters are named',
    );
    assert.doesNotMatch(text, /2\.25\.\d{6,}/, 'no UID in the trace');
    assert.doesNotMatch(text, /DEMO\*/, 'no query value in the trace');
  });

  test('a full disk while caching fails the case naming the cache, and leaves no series taken as complete', async (t) => {
    const cache = join(dir, 'cache-full');
    await mkdir(cache);
    try {
      // Room for a few slices of the demo series, not for one whole.
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160k', 'none', cache], { stdio: 'ignore' });
    } catch {
      if (process.env.CI === 'true') throw new Error('CI must be able to mount a tmpfs (run as root)');
      t.skip('a tmpfs cannot be mounted here (needs root); CI mounts one');
      return;
    }
    try {
      // The tree's own series: what earlier tests stored back (one small capture each) would fit.
      await writeFile(join(dir, 'full.yaml'), playbook('dicomweb: ${env.PACS}\n  where: { Modality: [CT, MR] }'));
      const r = await wbplay(
        ['run', 'full.yaml', '--out', 'out-full', '--reporter', 'line', '--retries', '0'],
        dir,
        env({ XDG_CACHE_HOME: cache }),
      );
      assert.equal(r.code, 1, explain(r));
      const cases = (await report('out-full')).cases;
      assert.ok(cases.length >= 1);
      for (const c of cases) {
        assert.equal(c.status, 'error', c.id);
        const error = c.steps.find((s) => s.error)?.error;
        assert.equal(error?.code, 'CACHE_WRITE', JSON.stringify(error));
        assert.ok(error?.message.includes(join(cache, 'wbplay', 'dicomweb')), error?.message);
      }
      const manifests = (await filesUnder(cache)).filter((f) => f.endsWith('.json'));
      assert.deepEqual(manifests, [], 'no series is recorded as complete');
    } finally {
      execFileSync('umount', [cache]);
    }
  });

  test('credentials appear in no output file', async () => {
    for (const out of ['out-pacs', 'out-store', 'out-seg', 'out-junk', 'out-trace']) {
      for (const file of await filesUnder(join(dir, out))) {
        const text = await readFile(file, 'latin1');
        assert.ok(!text.includes(orthanc.password), `${file} holds the password`);
        assert.ok(!text.includes(Buffer.from(`${orthanc.user}:${orthanc.password}`).toString('base64')), file);
      }
    }
  });

  test('an archive that is down at the start: a clear error naming the URL, exit 1', async () => {
    const url = `http://127.0.0.1:${await deadPort()}/dicom-web`;
    const r = await wbplay(['run', 'pacs.yaml', '--out', 'out-down', '--reporter', 'line'], dir, env({ PACS: url }));
    assert.equal(r.code, 1, explain(r));
    assert.match(r.stderr, new RegExp(url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
  });

  test('a refused login fails fast, names the archive and the refusal, and is not retried', async () => {
    const before = proxy.requests.length;
    const r = await wbplay(
      ['run', 'pacs.yaml', '--out', 'out-refused', '--reporter', 'line'],
      dir,
      env({ DICOMWEB_PASSWORD: 'wrong' }),
    );
    assert.equal(r.code, 1, explain(r));
    assert.match(r.stderr, /401/);
    assert.match(r.stderr, new RegExp(`127\\.0\\.0\\.1:${new URL(proxy.url).port}`));
    assert.equal(proxy.requests.length - before, 1, 'the refused search was retried');
    assert.ok(!r.stderr.includes('wrong'));
  });
});
