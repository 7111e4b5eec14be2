import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HtmlReporter } from '../../src/report/html.js';
import { JsonReporter } from '../../src/report/json.js';
import { JunitReporter } from '../../src/report/junit.js';
import { LineReporter } from '../../src/report/line.js';
import type { Reporter } from '../../src/result/reporter.js';
import { GOLDEN_DIR, loadEvents, recordedResult, replay } from './replay.js';

// Recorded reporter events in (a passing case, a failing image assertion with artefacts, a
// step that erred after retries, skipped steps, a case skipped as up to date), expected
// reports out. `UPDATE_GOLDENS=1` rewrites the expected files after a deliberate change.

const events = loadEvents();

function mask(text: string, outputDir: string): string {
  return text
    .split(outputDir)
    .join('<OUT>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?/g, '<TIME>');
}

/** The page's style and script are code, not content; their own tests look at them. */
function maskHtmlAssets(html: string): string {
  return html
    .replace(/<style>[\s\S]*?<\/style>/, '<style>…</style>')
    .replace(/<script>[\s\S]*?<\/script>/, '<script>…</script>')
    .replace(/sha256-[A-Za-z0-9+/=]+/g, 'sha256-…');
}

async function checkGolden(name: string, actual: string): Promise<void> {
  const path = join(GOLDEN_DIR, name);
  if (process.env.UPDATE_GOLDENS === '1') await writeFile(path, actual);
  const expected = await readFile(path, 'utf8');
  assert.equal(
    actual,
    expected,
    `${name} differs from its golden; if the change is intended, run with UPDATE_GOLDENS=1 and review the diff`,
  );
}

async function run(
  make: (outputDir: string) => Reporter,
): Promise<{ outputDir: string; cleanup: () => Promise<void> }> {
  const outputDir = await mkdtemp(join(tmpdir(), 'wbplay-golden-'));
  await replay(make(outputDir), events, outputDir);
  return { outputDir, cleanup: () => rm(outputDir, { recursive: true, force: true }) };
}

test('the JSON report is the recorded result tree', async () => {
  const { outputDir, cleanup } = await run((dir) => new JsonReporter(dir));
  try {
    const text = await readFile(join(outputDir, 'report.json'), 'utf8');
    assert.deepEqual(JSON.parse(text), recordedResult(events));
    await checkGolden('report.json', mask(text, outputDir));
  } finally {
    await cleanup();
  }
});

test('the JUnit report matches its golden', async () => {
  // The output folder stands for the project root here, so attachments are named as in the run.
  const { outputDir, cleanup } = await run((dir) => new JunitReporter(dir, dir));
  try {
    await checkGolden('junit.xml', mask(await readFile(join(outputDir, 'junit.xml'), 'utf8'), outputDir));
  } finally {
    await cleanup();
  }
});

test('the HTML report matches its golden', async () => {
  const { outputDir, cleanup } = await run((dir) => new HtmlReporter(dir));
  try {
    const html = await readFile(join(outputDir, 'report.html'), 'utf8');
    await checkGolden('report.html', maskHtmlAssets(mask(html, outputDir)));
  } finally {
    await cleanup();
  }
});

test('the line output matches its golden', async () => {
  let text = '';
  const stream = { write: (chunk: string) => (text += chunk) };
  const { outputDir, cleanup } = await run(() => new LineReporter({ stream, color: false }));
  try {
    await checkGolden('line.txt', mask(text, outputDir));
  } finally {
    await cleanup();
  }
});
