import { parentPort } from 'node:worker_threads';
import { readDataSet } from './data-set.js';
import { DicomReadError } from './errors.js';
import { decodeInto, rescaledType } from './pixel-values.js';
import { sliceHeader } from './slice-header.js';

/**
 * Runs inside a worker thread of the decode pool: reads one file at a time and decodes it
 * straight into the shared frame it is given, so several cores decode one series.
 */
export interface DecodeJob {
  id: number;
  file: string;
  frame: SharedArrayBuffer;
  rgb?: SharedArrayBuffer;
  offset: number;
  rows: number;
  columns: number;
}

export type DecodeAnswer =
  | { id: number; min: number; max: number; type: string }
  | { id: number; error: { code: string; file: string; reason: string } };

export async function runJob(job: DecodeJob): Promise<DecodeAnswer> {
  try {
    const h = sliceHeader(await readDataSet(job.file));
    if (h.rows !== job.rows || h.columns !== job.columns)
      throw new DicomReadError(
        'CORRUPT',
        job.file,
        `is ${h.columns}x${h.rows}, the series' first file ${job.columns}x${job.rows}`,
      );
    const out = new Float32Array(job.frame);
    const { min, max } = await decodeInto(h, out, job.offset, job.rgb ? new Uint8Array(job.rgb) : undefined);
    return { id: job.id, min, max, type: rescaledType(h) };
  } catch (err) {
    if (err instanceof DicomReadError)
      return { id: job.id, error: { code: err.code, file: err.file, reason: err.reason } };
    return {
      id: job.id,
      error: { code: 'CORRUPT', file: job.file, reason: err instanceof Error ? err.message : String(err) },
    };
  }
}

const port = parentPort;
if (port) port.on('message', (job: DecodeJob) => void runJob(job).then((answer) => port.postMessage(answer)));
