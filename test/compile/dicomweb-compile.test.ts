// What the compiler makes of archives: a `foreach: dicomweb` asks for its search and, given the
// answer, names and lays out its cases as `foreach: dicom` does, in the cache; `validate` asks
// no archive; `load: { dicomweb }` and `store` are checked where they are written.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { compilePlaybook } from '../../src/compile/index.js';
import type { ArchiveResults, ArchiveSearch, ArchiveSeries } from '../../src/compile/foreach-dicomweb.js';
import { seriesDir, studyDir } from '../../src/dicomweb/cache-layout.js';
import { uidHash } from '../../src/volume/dicom/scan.js';

const dir = mkdtempSync(join(tmpdir(), 'wbplay-dicomweb-compile-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const URL = 'http://127.0.0.1:8042/dicom-web';
const CACHE = join(dir, 'cache');

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function series(study: string, uid: string, modality: string, number: number): ArchiveSeries {
  return {
    keywords: {
      PatientID: 'P1',
      StudyInstanceUID: study,
      StudyDate: '20240105',
      StudyDescription: 'CT ABDOMEN',
      AccessionNumber: 'ACC1',
      SeriesInstanceUID: uid,
      SeriesNumber: number,
      SeriesDescription: `${modality} ${number}`,
      Modality: modality,
      BodyPartExamined: 'ABDOMEN',
      Rows: 64,
      Columns: 64,
    },
    instances: 32,
  };
}

const FOUND = [
  series('1.2.3', '1.2.3.1', 'CT', 2),
  series('1.2.3', '1.2.3.2', 'CT', 3),
  series('1.2.4', '1.2.4.1', 'MR', 1),
];

function archives(asked: ArchiveSearch[] = []): ArchiveResults {
  return {
    cacheRoot: CACHE,
    found: (search) => {
      asked.push(search);
      return FOUND;
    },
  };
}

const COHORT = `version: 1
foreach:
  dicomweb: ${URL}/
  where: { Modality: CT }
steps:
  - load: { file: "\${study.path}", as: s }
  - screenshot: { of: stdmulti/axial, save: "out/\${study.name}.png" }
`;

test('a foreach: dicomweb asks for its search, and compiles its cases from the answer', () => {
  const path = file('cohort.yaml', COHORT);
  const first = compilePlaybook(path, { env: {} });
  assert.deepEqual(first.diagnostics, []);
  assert.equal(first.plan, undefined);
  assert.deepEqual(first.searches, [{ url: URL, per: 'series', where: { Modality: 'CT' } }]);

  const asked: ArchiveSearch[] = [];
  const { plan, diagnostics } = compilePlaybook(path, { env: {}, archives: archives(asked) });
  assert.deepEqual(diagnostics, []);
  assert.ok(plan);
  // Named as foreach: dicom names the same series: hashes of the UIDs, modality and number.
  assert.deepEqual(
    plan.cases.map((c) => c.name),
    [`${uidHash('1.2.3', 10)}-CT2-${uidHash('1.2.3.1', 6)}`, `${uidHash('1.2.3', 10)}-CT3-${uidHash('1.2.3.2', 6)}`],
  );
  const [a] = plan.cases;
  assert.deepEqual(a!.retrieve, [
    { url: URL, study: '1.2.3', series: '1.2.3.1', instances: 32, dir: seriesDir(CACHE, '1.2.3', '1.2.3.1') },
  ]);
  // The playbook reads `path`: the series' folder in the cache, not there yet and not an input.
  assert.deepEqual(a!.study, { name: a!.name, path: seriesDir(CACHE, '1.2.3', '1.2.3.1') });
  const load = a!.steps.find((s) => s.kind === 'load');
  assert.equal(load?.kind === 'load' && load.args.file, seriesDir(CACHE, '1.2.3', '1.2.3.1'));
  assert.deepEqual(a!.inputs, []);
  assert.equal(plan.foreach?.source, 'dicomweb');
});

test('per: study makes one case per study holding all its series, its folder the study folder in the cache', () => {
  const path = file(
    'studies.yaml',
    COHORT.replace('  where: { Modality: CT }', '  per: study\n  where: { Modality: MR }'),
  );
  const { plan, diagnostics } = compilePlaybook(path, { env: {}, archives: archives() });
  assert.deepEqual(diagnostics, []);
  assert.equal(plan?.cases.length, 1);
  assert.equal(plan?.cases[0]!.study?.path, seriesDir(CACHE, '1.2.4', '1.2.4.1'));
  const both = compilePlaybook(file('both.yaml', COHORT.replace('  where: { Modality: CT }', '  per: study')), {
    env: {},
    archives: archives(),
  });
  const first = both.plan?.cases[0];
  assert.equal(first?.retrieve?.length, 2);
  assert.equal(first?.study?.path, studyDir(CACHE, '1.2.3'));
});

test('validate asks no archive, and still checks the steps', () => {
  const path = file('broken.yaml', `${COHORT}  - set: { node: nowhere, opacity: 2 }\n`);
  const { searches, diagnostics } = compilePlaybook(path, { env: {}, checkFiles: false, checkOnly: true });
  assert.equal(searches, undefined);
  assert.ok(diagnostics.length > 0);
});

test('archive mistakes are errors where they are written', () => {
  const cases: Array<[string, string, RegExp]> = [
    [
      'foreach:\n  dicomweb: pacs.local/dicom-web\nsteps:\n  - reinit\n',
      'FOREACH_SOURCE',
      /is not an http:\/\/ or https:\/\/ URL/,
    ],
    [
      'foreach:\n  dicomweb: http://x\n  where: { Modalty: CT }\nsteps:\n  - reinit\n',
      'FOREACH_SOURCE',
      /not a DICOM keyword/,
    ],
    [
      `steps:\n  - load: { file: a.nrrd, dicomweb: { url: "${URL}", study: "1.2", series: "1.3" } }\n`,
      'EXCLUSIVE_FIELDS',
      /either `file` or `dicomweb`/,
    ],
    [
      `steps:\n  - screenshot: { of: app, save: out/a.png }\n  - store: { dicomweb: "${URL}", images: [out/a.png] }\n`,
      'MISSING_FIELD',
      /did not come from DICOM/,
    ],
    [
      `steps:\n  - store: { dicomweb: "${URL}", images: [a.png], node: x, study: "1.2" }\n`,
      'EXCLUSIVE_FIELDS',
      /either `images` or `node`/,
    ],
    ['steps:\n  - store: { dicomweb: ftp://x, images: [a.png], study: "1.2" }\n', 'BAD_VALUE', /not an http/],
  ];
  for (const [i, [body, code, message]] of cases.entries()) {
    const { diagnostics } = compilePlaybook(file(`m${i}.yaml`, `version: 1\n${body}`), {
      env: {},
      checkFiles: false,
      archives: archives(),
    });
    assert.ok(
      diagnostics.some((d) => d.code === code && message.test(d.message)),
      `${body}: ${JSON.stringify(diagnostics.map((d) => [d.code, d.message]))}`,
    );
  }
});

test('a store in a case of a DICOM cohort stores into its own study: its source is the case series', () => {
  const path = file(
    'store.yaml',
    COHORT.replace(
      '  - screenshot',
      `  - store: { dicomweb: "${URL}", images: ["out/\${study.name}.png"], series_description: axial }\n  - screenshot`,
    ),
  );
  const { plan, diagnostics } = compilePlaybook(path, { env: {}, archives: archives() });
  assert.deepEqual(diagnostics, []);
  const store = plan!.cases[0]!.steps.find((s) => s.kind === 'store');
  assert.ok(store?.kind === 'store');
  assert.equal(store.args.source, seriesDir(CACHE, '1.2.3', '1.2.3.1'));
  assert.equal(store.args.playbook, 'store');
  assert.equal(store.args.series_number, 9001);
  // Its description names no UID.
  assert.doesNotMatch(store.description, /1\.2\.3/);
});
