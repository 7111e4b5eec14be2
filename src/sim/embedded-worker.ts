import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { startReferenceWorkbench, type ReferenceWorkbenchOptions } from './server.js';

// Runs inside a worker thread: serves one reference workbench until the parent says stop.
const port = parentPort;
if (port) {
  startReferenceWorkbench({ port: 0, ...(workerData as ReferenceWorkbenchOptions) }).then(
    (handle) => {
      port.on('message', (msg) => {
        if (msg === 'stop') void handle.stop().finally(() => port.close());
        else if (msg === 'heap' || msg === 'heap after gc') {
          // Memory is measured per thread: the process's RSS alone cannot say which thread grows.
          if (msg === 'heap after gc') (globalThis as { gc?: () => void }).gc?.();
          port.postMessage({ heap: getHeapStatistics(), asked: msg });
        }
      });
      port.postMessage({ url: handle.url });
    },
    (err: unknown) => port.postMessage({ error: err instanceof Error ? err.message : String(err) }),
  );
}
