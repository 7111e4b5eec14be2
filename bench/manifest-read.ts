// A 10,000-row study manifest compiled into its cases, as each source holds it: JSON (the
// baseline: JSON.parse), CSV with commas, CSV as German Excel saves it (BOM, `;`, decimal
// commas, CRLF) and an Excel workbook (exceljs, in a worker thread the compiler waits for).
// Part of the cohort benchmark; `WBPLAY_BENCH_MANIFEST_ONLY=1 npm run bench -- cohort` runs it alone.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { compilePlaybook } from '../src/compile/index.js';
import type { StudyRow } from '../src/sim/demo-data.js';
import { STUDY_COLUMNS, writeStudiesWorkbook } from '../src/sim/demo-workbook.js';

const RUNS = 3;

function studies(count: number): StudyRow[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `study-${String(i + 1).padStart(5, '0')}`,
    path: `study-${String(i + 1).padStart(5, '0')}`,
    tumour_x: 10.25 + (i % 17),
    tumour_y: -4.5 - (i % 11),
    tumour_z: 30 + (i % 5),
    tumour_radius_mm: 7.75,
  }));
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[values.length >> 1]!;
}

/** Compile time of a playbook over `count` studies from each source; ratios to the JSON manifest. */
export async function manifestFigures(count = 10_000): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-bench-manifest-'));
  try {
    const rows = studies(count);
    const cells = (s: StudyRow, comma: boolean): string[] =>
      STUDY_COLUMNS.map((c) => (comma ? String(s[c]).replace('.', ',') : String(s[c])));
    await writeFile(join(dir, 'studies.json'), JSON.stringify(rows));
    await writeFile(
      join(dir, 'studies.csv'),
      [STUDY_COLUMNS.join(','), ...rows.map((s) => cells(s, false).join(','))].join('\n') + '\n',
    );
    await writeFile(
      join(dir, 'german.csv'),
      '\uFEFF' + [STUDY_COLUMNS.join(';'), ...rows.map((s) => cells(s, true).join(';'))].join('\r\n') + '\r\n',
    );
    await writeStudiesWorkbook(join(dir, 'studies.xlsx'), rows);
    const sources = {
      json: 'json: studies.json',
      csv: 'csv: studies.csv',
      'csv ;': 'csv: german.csv',
      xlsx: 'xlsx: studies.xlsx',
    };
    type Source = keyof typeof sources;
    const times: Record<Source, number[]> = { json: [], csv: [], 'csv ;': [], xlsx: [] };
    for (const [name, foreach] of Object.entries(sources)) {
      await writeFile(
        join(dir, `${name.replace(' ;', '-semicolon')}.yaml`),
        `version: 1\nforeach: { ${foreach} }\nsteps:\n  - position: ["\${study.tumour_x}", "\${study.tumour_y}", "\${study.tumour_z}"]\n`,
      );
    }
    for (let round = 0; round <= RUNS; round++) {
      for (const name of Object.keys(sources) as Source[]) {
        const t0 = performance.now();
        const result = compilePlaybook(join(dir, `${name.replace(' ;', '-semicolon')}.yaml`), {
          env: {},
          checkFiles: false,
        });
        const ms = performance.now() - t0;
        if (result.plan?.cases.length !== count)
          throw new Error(
            `${name}: ${result.plan?.cases.length ?? 0} cases of ${count} (${result.diagnostics[0]?.message ?? ''})`,
          );
        if (result.plan.cases[count - 1]?.study?.tumour_x !== rows[count - 1]!.tumour_x)
          throw new Error(`${name}: the last study's tumour_x was not read as the number it is`);
        if (round > 0) times[name].push(ms);
      }
    }
    const base = median(times.json);
    console.log(
      `a ${count.toLocaleString('en')}-row manifest compiled into its cases (medians of ${RUNS} alternating runs after a warm-up)`,
    );
    console.log('  source  compile ms  vs json');
    for (const name of Object.keys(sources) as Source[]) {
      const ms = median(times[name]);
      console.log(`${name.padStart(8)}  ${ms.toFixed(0).padStart(10)}  ${(ms / base).toFixed(2).padStart(6)}x`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
