// `foreach: dicom` over a 20,000-file export: the compile of a playbook that enumerates it (the
// header scan, the grouping into series, the cases), in this process, against a loop of
// pydicom's `dcmread(f, stop_before_pixels=True)` over the same files, timed by Python itself
// (its start, its import and its listing of the files not counted). Target: <= 0.5x.
//
// The export is written once by pydicom into .bench-tmp/ from its own CT and MR test files
// (real headers; 16x16 pixels so that the files stay small), 50 patients x 2 studies x 4 series
// x 50 files, without file extensions, and kept for later runs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compilePlaybook } from '../src/compile/compiler.js';
import { pythonWith } from './dicom-series.js';

const FILES = Number(process.env.WBPLAY_BENCH_DICOM_FILES ?? 20_000);
const RUNS = Number(process.env.WBPLAY_BENCH_DICOM_RUNS ?? 5);
const TARGET = 0.5;
const root = fileURLToPath(new URL('..', import.meta.url));

const WRITE = `
import os, sys, copy
import pydicom
from pydicom.data import get_testdata_file
from pydicom.uid import generate_uid
out, total = sys.argv[1], int(sys.argv[2])
templates = [pydicom.dcmread(get_testdata_file(n)) for n in ("CT_small.dcm", "MR_small.dcm")]
for t in templates:
    t.Rows = t.Columns = 16
    t.PixelData = bytes(16 * 16 * 2)
n = 0
patient = 0
while n < total:
    patient += 1
    for study in range(2):
        study_uid = generate_uid(entropy_srcs=[str(patient), str(study)])
        for series in range(4):
            ds = copy.deepcopy(templates[(study + series) % 2])
            ds.PatientID = "P%05d" % patient
            ds.StudyInstanceUID = study_uid
            ds.SeriesInstanceUID = generate_uid(entropy_srcs=[str(patient), str(study), str(series)])
            ds.SeriesNumber = series + 1
            folder = os.path.join(out, "P%05d" % patient, "ST%d" % study, "SE%d" % series)
            os.makedirs(folder, exist_ok=True)
            for i in range(50):
                if n >= total: break
                ds.SOPInstanceUID = generate_uid()
                ds.file_meta.MediaStorageSOPInstanceUID = ds.SOPInstanceUID
                ds.InstanceNumber = i + 1
                ds.save_as(os.path.join(folder, "IM%04d" % i), write_like_original=False)
                n += 1
`;

const READ = `
import os, sys, time
import pydicom
files = [os.path.join(d, f) for d, _, fs in os.walk(sys.argv[1]) for f in fs if not f.startswith(".")]
t = time.perf_counter()
for f in files:
    pydicom.dcmread(f, stop_before_pixels=True)
print((time.perf_counter() - t) * 1000, len(files))
`;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

export default async function bench(): Promise<void> {
  const py = pythonWith('pydicom');
  if (!py) {
    console.log('pydicom is not installed (Debian: python3-pydicom): no baseline, nothing measured');
    return;
  }
  const dir = join(root, '.bench-tmp', `dicom-scan-${FILES}`);
  const export_ = join(dir, 'export');
  if (!existsSync(join(dir, 'done'))) {
    mkdirSync(dir, { recursive: true });
    const t = performance.now();
    execFileSync(py, ['-c', WRITE, export_, String(FILES)], { stdio: ['ignore', 'inherit', 'inherit'] });
    writeFileSync(join(dir, 'done'), '');
    console.log(`wrote ${FILES} files with pydicom in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  const playbook = join(dir, 'cohort.yaml');
  writeFileSync(
    playbook,
    'version: 1\nforeach:\n  dicom: export\nsteps:\n  - load: { file: "${study.path}", as: s }\n',
  );
  const ours: number[] = [];
  const theirs: number[] = [];
  let cases = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const r = compilePlaybook(playbook, { env: {} });
    ours.push(performance.now() - t);
    if (!r.plan) throw new Error(JSON.stringify(r.diagnostics.slice(0, 3)));
    cases = r.plan.cases.length;
    const [ms, files] = execFileSync(py, ['-c', READ, export_], { encoding: 'utf8' }).trim().split(' ').map(Number);
    if (files !== FILES) throw new Error(`pydicom read ${files} files, not ${FILES}`);
    theirs.push(ms ?? NaN);
  }
  const a = median(ours);
  const b = median(theirs);
  const ratio = a / b;
  console.log(`foreach: dicom over ${FILES} files (${cases} series), medians of ${RUNS} alternating runs:`);
  console.log(
    `  wbplay compile        ${a.toFixed(0)} ms  (${((a * 1000) / FILES).toFixed(1)} µs a file; runs ${ours.map((x) => x.toFixed(0)).join(', ')})`,
  );
  console.log(
    `  pydicom dcmread loop  ${b.toFixed(0)} ms  (${((b * 1000) / FILES).toFixed(1)} µs a file; runs ${theirs.map((x) => x.toFixed(0)).join(', ')})`,
  );
  console.log(`  ratio ${ratio.toFixed(2)}x (target <= ${TARGET}x): ${ratio <= TARGET ? 'MET' : 'MISSED'}`);
}
