// One load of a DICOM series into a fresh reference workbench in this process, by file
// reference to one of its files, as a user's `load` does. Prints the time of the request and
// the peak RSS growth over the RSS before it as JSON.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startReferenceWorkbench } from '../src/sim/server.js';

const folder = process.argv[2]!;
const handle = await startReferenceWorkbench({ host: '127.0.0.1', port: 0 });
const file = join(folder, (await readdir(folder)).sort()[0]!);
global.gc?.();
const before = process.memoryUsage.rss();
let peak = before;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 2);
const t0 = performance.now();
const res = await fetch(`${handle.url}/api/v1/datastorage/nodes`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'ct', transfer: { file_path: file } }),
});
const text = await res.text();
const ms = performance.now() - t0;
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage.rss(), process.resourceUsage().maxRSS * 1024);
if (res.status !== 201) {
  console.error(`load failed: ${res.status} ${text.slice(0, 300)}`);
  process.exit(1);
}
await handle.stop();
process.stdout.write(JSON.stringify({ ms, growth: peak - before }) + '\n');
