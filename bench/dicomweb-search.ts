// Part 3 of the dicomweb benchmark: QIDO-RS paging over thousands of one-instance studies,
// wbplay's search (the library's searchArchive, its requests counted through the Archive's
// onRequest) against the same pages fetched back to back by plain undici: the server's pace.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Agent, request } from 'undici';
import { searchArchive } from '../src/dicomweb/search.js';
import type { ArchiveRequest } from '../src/dicomweb/types.js';
import { startOrthanc, type Orthanc } from '../test/helpers/orthanc.js';
import { tinyStudies } from './dicomweb-data.js';
import { archiveOf, basicAuth, loadNow, median, pushed, sum } from './dicomweb-runs.js';

interface SearchRun {
  ms: number;
  requests: number;
  /** The requests' own durations as the archive's records give them, summed. */
  requestMs: number;
  found: number;
  urls: string[];
}

/** searchArchive over every study (no `where`), a fresh Archive each time; the URLs sent are taken from undici's diagnostics channel. */
async function librarySearch(orthanc: Orthanc): Promise<SearchRun> {
  const records: ArchiveRequest[] = [];
  const urls: string[] = [];
  const onCreate = (message: unknown): void => {
    const { origin, path } = (message as { request: { origin: string; path: string } }).request;
    if (origin === orthanc.root) urls.push(`${origin}${path}`);
  };
  const archive = archiveOf(orthanc, (r) => records.push(r));
  subscribe('undici:request:create', onCreate);
  try {
    const t0 = performance.now();
    const found = await searchArchive(archive, undefined, false);
    const ms = performance.now() - t0;
    return { ms, requests: records.length, requestMs: sum(records.map((r) => r.ms)), found: found.length, urls };
  } finally {
    unsubscribe('undici:request:create', onCreate);
    await archive.close();
  }
}

/** The same URLs back to back through plain undici, each body read whole: the archive's own pace. */
async function plainPages(orthanc: Orthanc, urls: string[]): Promise<number> {
  const agent = new Agent({ keepAliveTimeout: 4_000 });
  const authorization = basicAuth(orthanc);
  try {
    const t0 = performance.now();
    for (const url of urls) {
      const res = await request(url, {
        dispatcher: agent,
        headers: { accept: 'application/dicom+json', authorization },
      });
      await res.body.arrayBuffer();
      if (res.statusCode >= 300) throw new Error(`GET ${url}: ${res.statusCode}`);
    }
    return performance.now() - t0;
  } finally {
    await agent.close();
  }
}

/** Part 3: QIDO-RS paging over many studies, wbplay's search against the server's pace. */
export async function searchBench(python: string, dataRoot: string, runs: number, studies: number): Promise<void> {
  const set = await tinyStudies(dataRoot, python, studies);
  const orthanc = await startOrthanc();
  try {
    await pushed(orthanc, set.files, `${studies} one-instance studies`);
    const warm = await librarySearch(orthanc);
    if (warm.found !== studies) throw new Error(`the search found ${warm.found} series, not ${studies}`);
    await plainPages(orthanc, warm.urls);
    const ours: SearchRun[] = [];
    const plain: number[] = [];
    const loads = [loadNow()];
    for (let round = 0; round < runs; round++) {
      if (round % 2 === 1) plain.push(await plainPages(orthanc, warm.urls));
      ours.push(await librarySearch(orthanc));
      if (round % 2 === 0) plain.push(await plainPages(orthanc, warm.urls));
    }
    loads.push(loadNow());
    const n = warm.urls.length;
    console.log(
      `\n### search: QIDO-RS over ${studies} studies of one series each, pages of 100; ${runs} alternating runs after a warm-up; load average ${loads.join(' -> ')}`,
    );
    console.log(
      'wbplay: searchArchive(new Archive(…), no where, per series) in this process; plain: the same URLs back to back through undici (one keep-alive agent), bodies read, not parsed',
    );
    console.log(
      '| run | wbplay requests | wbplay ms | ms a request | in requests ms | plain ms | ms a request | ratio |',
    );
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    ours.forEach((r, i) => {
      const p = plain[i]!;
      console.log(
        `| ${i + 1} | ${r.requests} | ${r.ms.toFixed(0)} | ${(r.ms / r.requests).toFixed(2)} | ${r.requestMs.toFixed(0)} | ${p.toFixed(0)} | ${(p / n).toFixed(2)} | ${(r.ms / p).toFixed(2)} |`,
      );
    });
    const ms = median(ours.map((r) => r.ms));
    const p = median(plain);
    const ratio = median(ours.map((r, i) => r.ms / plain[i]!));
    const pages = warm.urls.filter((u) => /\/studies\?/.test(u)).length;
    console.log(
      `requests: ${n} (${pages} pages of studies, ${n - pages} series searches, one per study); wbplay ${ms.toFixed(0)} ms, ${((ms / n) * 1000).toFixed(0)} µs a request; plain ${p.toFixed(0)} ms, ${((p / n) * 1000).toFixed(0)} µs a request; wbplay / plain ${ratio.toFixed(2)}× (median of the runs' ratios; no target)`,
    );
  } finally {
    await orthanc.stop();
  }
}
