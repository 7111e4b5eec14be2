import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  POOL_THREAD,
  type BatchAnswer,
  type DecodeBatch,
  type DecodeJob,
  type Preload,
} from './dicom-decode-worker.js';
import { DicomReadError, type DicomErrorCode } from './errors.js';

/**
 * Worker threads that decode a block's files in parallel into shared memory. They start on
 * the first large block and stay (unreferenced: they never keep the process alive), for
 * starting a thread costs more than decoding a small series.
 */
interface PoolWorker {
  worker: Worker;
}

let pool: PoolWorker[] | undefined;
const waiting = new Map<number, { resolve: (answer: BatchAnswer) => void; reject: (err: Error) => void }>();
let nextId = 0;

function startWorker(): PoolWorker {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(fromSource ? './dicom-decode-worker.ts' : './dicom-decode-worker.js', import.meta.url).href;
  // Node 20 does not pass `--import` hooks on to workers: from source, the worker registers tsx itself.
  const code = fromSource
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); })`
    : `import(${JSON.stringify(entry)})`;
  const worker = new Worker(code, { eval: true, workerData: POOL_THREAD });
  worker.unref();
  worker.on('message', (answer: BatchAnswer) => {
    const done = waiting.get(answer.id);
    waiting.delete(answer.id);
    done?.resolve(answer);
  });
  // A thread that dies takes the pool with it: what waits fails, the next block starts anew.
  worker.on('error', (err) => {
    pool = undefined;
    for (const [id, done] of waiting) {
      waiting.delete(id);
      done.reject(err);
    }
  });
  return { worker };
}

/**
 * How many threads decode: one per core the machine has. The thread that asked waits while
 * they work, so none is left idle, and a decode is all computation: more threads than cores
 * would only take turns.
 */
export function poolSize(): number {
  return Math.max(1, availableParallelism());
}

/** How many threads the pool has started (0 before the first large block). */
export function poolThreads(): number {
  return pool?.length ?? 0;
}

/**
 * Starts the threads ahead of a large read, so that their start overlaps the reading of the
 * series' headers instead of following it; for a compressed series they load the codecs too.
 */
export function warmPool(compressed = false): void {
  pool ??= Array.from({ length: poolSize() }, startWorker);
  if (compressed) for (const w of pool) w.worker.postMessage({ preload: 'codecs' } satisfies Preload);
}

/**
 * Ends the threads. An unreferenced thread never keeps the process alive by itself, but one run
 * from source registers its TypeScript loader, whose hooks do; a server that stops ends them.
 */
export async function stopPool(): Promise<void> {
  const workers = pool ?? [];
  pool = undefined;
  await Promise.all(workers.map((w) => w.worker.terminate()));
}

/** Decodes the jobs on the pool; resolves with the first job's type (with what its decoding learnt). */
export async function decodeOnPool(jobs: Array<Omit<DecodeJob, 'id'>>): Promise<string> {
  warmPool();
  const workers = pool!;
  for (const w of workers) w.worker.ref();
  const claims = new SharedArrayBuffer(8);
  let answers: BatchAnswer[];
  try {
    answers = await Promise.all(
      workers.map(
        (w) =>
          new Promise<BatchAnswer>((resolve, reject) => {
            const id = nextId++;
            waiting.set(id, { resolve, reject });
            w.worker.postMessage({ id, jobs, claims } satisfies DecodeBatch);
          }),
      ),
    );
  } finally {
    for (const w of workers) w.worker.unref();
  }
  let firstType = '';
  for (const answer of answers) {
    if ('error' in answer)
      throw new DicomReadError(answer.error.code as DicomErrorCode, answer.error.file, answer.error.reason);
    if (answer.firstType !== undefined) firstType = answer.firstType;
  }
  return firstType;
}
