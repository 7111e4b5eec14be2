import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createReporters,
  defaultReporterNames,
  parseReporterNames,
  writeReportFiles,
} from '../../src/report/factory.js';
import { ReportError } from '../../src/report/report-error.js';
import { loadEvents, recordedResult, recordedRun, replay } from './replay.js';

const events = loadEvents();

test('the default is the task list on a terminal and lines elsewhere, plus the JSON and HTML files', () => {
  assert.deepEqual(defaultReporterNames(true), ['tasklist', 'json', 'html']);
  assert.deepEqual(defaultReporterNames(false), ['line', 'json', 'html']);
});

test('--reporter takes repeated options and comma lists; an unknown name is a usage error with a suggestion', () => {
  assert.deepEqual(parseReporterNames(['line,junit', 'json', 'line', ' html ']), ['line', 'junit', 'json', 'html']);
  assert.throws(
    () => parseReporterNames(['line,jnuit']),
    (e: unknown) =>
      e instanceof ReportError &&
      e.code === 'UNKNOWN_REPORTER' &&
      /did you mean "junit"/.test(e.message) &&
      /tasklist, line, json, junit, html/.test(e.hint ?? ''),
  );
  assert.throws(
    () => parseReporterNames(['pdf']),
    (e: unknown) => e instanceof ReportError && !e.message.includes('did you mean'),
  );
});

test('the chosen reporters write their files into the output folder, and nothing else is left there', async () => {
  const outputDir = await mkdtemp(join(tmpdir(), 'wbplay-factory-'));
  try {
    let text = '';
    const fanout = createReporters(['line', 'json', 'junit', 'html'], {
      outputDir,
      stream: { write: (c: string) => (text += c) },
      isTTY: false,
      env: {},
    });
    await replay(fanout, events, outputDir);
    assert.deepEqual(fanout.failures, []);
    // Atomic writes leave no temporary files behind.
    assert.deepEqual((await readdir(outputDir)).sort(), ['junit.xml', 'report.html', 'report.json']);
    assert.deepEqual(JSON.parse(await readFile(join(outputDir, 'report.json'), 'utf8')), recordedResult(events));
    assert.match(text, /FAILED 5 cases/);
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
});

test('a report that cannot be written is a recorded reporter failure, not a crashed run', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'wbplay-factory-'));
  try {
    // The output "folder" is a file, so every report file fails to be written.
    const blocked = join(parent, 'report.json');
    await writeReportFiles(recordedRun(events), parent, ['json']);
    let text = '';
    const fanout = createReporters(['line', 'json', 'html'], {
      outputDir: blocked,
      stream: { write: (c: string) => (text += c) },
      isTTY: false,
      env: {},
    });
    await replay(fanout, events, blocked);
    assert.deepEqual(
      fanout.failures.map((f) => [f.reporter, f.event]),
      [
        ['json', 'onRunEnd'],
        ['html', 'onRunEnd'],
      ],
    );
    assert.match(text, /FAILED 5 cases/, 'the console reporter finished');
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

test('writeReportFiles writes the file reports of a merged result', async () => {
  const outputDir = await mkdtemp(join(tmpdir(), 'wbplay-factory-'));
  try {
    const paths = await writeReportFiles(recordedRun(events), outputDir);
    assert.deepEqual(
      paths,
      ['report.json', 'junit.xml', 'report.html'].map((f) => join(outputDir, f)),
    );
    assert.match(await readFile(join(outputDir, 'report.html'), 'utf8'), /^<!DOCTYPE html>/);
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
});
