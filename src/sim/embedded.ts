import { getHeapStatistics, type HeapInfo } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { ReferenceWorkbenchOptions } from './server.js';
import { startReferenceWorkbench } from './start.js';

/** A reference workbench started for a run; stopped when the run ends. */
export interface EmbeddedWorkbench {
  url: string;
  stop(): Promise<void>;
  /** Called when the worker ends without being asked to (a crash takes the workbench with it). */
  onExit?(listener: () => void): void;
  /**
   * V8's heap figures of the thread the workbench runs in; after a full collection when asked
   * and the process runs with --expose-gc (otherwise as they stand).
   */
  heap?(afterGc?: boolean): Promise<HeapInfo>;
}

/** Reference workbenches for a run, in the shape `runPlans` takes as `workbenches`. */
export interface EmbeddedWorkbenches {
  readonly count: number;
  readonly concurrent: true;
  start(index: number, of: number): Promise<EmbeddedWorkbench & { label: string }>;
}

/**
 * Up to `count` reference workbenches embedded in this process, started when a run begins and
 * stopped when it ends. One runs in this thread (no start-up cost); several run in worker
 * threads, so each renders on its own core.
 */
export function embeddedWorkbenches(count = 1, options: ReferenceWorkbenchOptions = {}): EmbeddedWorkbenches {
  return {
    count,
    concurrent: true,
    async start(index, of) {
      if (of === 1) {
        const server = await startReferenceWorkbench(options);
        return { url: server.url, label: 'embedded', stop: () => server.stop(), heap: threadHeap };
      }
      return { ...(await startEmbeddedInWorker(options)), label: `embedded #${index + 1}` };
    },
  };
}

/**
 * The young generation of a workbench thread: 8 MB semi-spaces, the size a thread works in for
 * a few hundred studies. V8 doubles them to 16 MB over a longer run, though the thread's live
 * heap stays flat: each of two threads reserved 44 MB at 3,000 studies against 26 MB at 600,
 * most of what a large cohort's process held more at its peak.
 */
const WORKER_HEAP = { maxYoungGenerationSizeMb: 24 };

/**
 * Starts the reference workbench in a worker thread, so that N workers render on N cores
 * while the main thread runs the plans. Running from source, the worker has to register the
 * TypeScript loader itself: Node 20 does not pass `--import` hooks on to workers.
 */
export function startEmbeddedInWorker(options: ReferenceWorkbenchOptions = {}): Promise<EmbeddedWorkbench> {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(fromSource ? './embedded-worker.ts' : './embedded-worker.js', import.meta.url).href;
  const code = fromSource
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); })`
    : `import(${JSON.stringify(entry)})`;
  const worker = new Worker(code, { eval: true, workerData: options, resourceLimits: WORKER_HEAP });
  return new Promise((resolve, reject) => {
    const fail = (err: unknown): void => reject(err instanceof Error ? err : new Error(String(err)));
    worker.once('error', fail);
    worker.once('exit', (code) =>
      fail(new Error(`the reference workbench worker exited (code ${code}) before it was ready`)),
    );
    worker.once('message', (msg: { url?: string; error?: string }) => {
      worker.removeAllListeners('exit');
      worker.removeListener('error', fail);
      if (msg.error !== undefined || msg.url === undefined) {
        void worker.terminate();
        fail(new Error(msg.error ?? 'the reference workbench worker sent no URL'));
        return;
      }
      let stopping = false;
      let ended = false;
      worker.once('exit', () => (ended = true));
      resolve({
        url: msg.url,
        heap: (afterGc = false) =>
          new Promise<HeapInfo>((done, fail) => {
            const asked = afterGc ? 'heap after gc' : 'heap';
            const answer = (msg: { heap?: HeapInfo; asked?: string }): void => {
              if (msg.asked !== asked || msg.heap === undefined) return;
              worker.off('message', answer);
              worker.off('exit', gone);
              done(msg.heap);
            };
            // A thread that ends before it answers never will: say so instead of waiting forever.
            const gone = (): void => {
              worker.off('message', answer);
              fail(new Error('the reference workbench thread ended before it gave its heap figures'));
            };
            if (ended) return gone();
            worker.on('message', answer);
            worker.once('exit', gone);
            worker.postMessage(asked);
          }),
        onExit: (listener) =>
          worker.once('exit', () => {
            if (!stopping) listener();
          }),
        stop: async () => {
          stopping = true;
          const exited = new Promise<void>((done) => worker.once('exit', () => done()));
          worker.postMessage('stop');
          const timer = setTimeout(() => void worker.terminate(), 5000);
          await exited;
          clearTimeout(timer);
        },
      });
    });
  });
}

/** This thread's heap figures (see EmbeddedWorkbench.heap). */
function threadHeap(afterGc = false): Promise<HeapInfo> {
  if (afterGc) (globalThis as { gc?: () => void }).gc?.();
  return Promise.resolve(getHeapStatistics());
}
