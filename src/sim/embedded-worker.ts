import { parentPort, workerData } from 'node:worker_threads';
import { startReferenceWorkbench, type ReferenceWorkbenchOptions } from './server.js';

// Runs inside a worker thread: serves one reference workbench until the parent says stop.
const port = parentPort;
if (port) {
  startReferenceWorkbench({ port: 0, ...(workerData as ReferenceWorkbenchOptions) }).then(
    (handle) => {
      port.on('message', (msg) => {
        if (msg === 'stop') void handle.stop().finally(() => port.close());
      });
      port.postMessage({ url: handle.url });
    },
    (err: unknown) => port.postMessage({ error: err instanceof Error ? err.message : String(err) }),
  );
}
