// `wbplay merge-reports` in a process of its own, so its peak memory is the merge's alone:
// merges the shard folders given after the output folder, writes the merged report.json,
// junit.xml and report.html, and prints the time, the peak RSS and the case count as JSON.
// Used by scale.bench.ts.
import { performance } from 'node:perf_hooks';
import { writeReportFiles } from '../src/report/factory.js';
import { mergeReports } from '../src/report/merge.js';

const [out, ...dirs] = process.argv.slice(2);
if (out === undefined || dirs.length === 0) throw new Error('usage: merge-shards.ts <out> <shard-dir>...');
const started = performance.now();
const merged = await mergeReports(dirs, out);
await writeReportFiles(merged, out);
const ms = performance.now() - started;
// maxRSS is in kilobytes.
console.log(JSON.stringify({ ms, peakRss: process.resourceUsage().maxRSS * 1024, cases: merged.summary.total }));
