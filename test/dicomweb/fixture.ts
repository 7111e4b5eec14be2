// What the DICOMweb tests share: the demo series as an archive holds them, a retry policy like
// the run's (it honours `retryable` and Retry-After), and throwaway folders.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { writeDemoDicom, type DemoDicomResult } from '../../src/sim/demo-dicom.js';
import { DicomwebError, type RetryRunner } from '../../src/dicomweb/index.js';
import { instancesOf, type Instance } from './dicomweb-server.js';

export async function tempDir(prefix = 'wbplay-dicomweb-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

let demo: Promise<{ result: DemoDicomResult; instances: Instance[] }> | undefined;

/** The demo's DICOM files (written once per test file) and the instances they hold. */
export function demoArchive(): Promise<{ result: DemoDicomResult; instances: Instance[] }> {
  demo ??= (async () => {
    const dir = await tempDir('wbplay-dicomweb-demo-');
    const result = await writeDemoDicom(dir);
    return { result, instances: await instancesOf(result.files) };
  })();
  return demo;
}

/** The demo CT series (32 instances): its study, series and instances. */
export async function demoCt(): Promise<{ study: string; series: string; instances: Instance[] }> {
  const { instances } = await demoArchive();
  const ct = instances.filter((i) => i.patientId === 'DEMO000' && i.modality === 'CT');
  return { study: ct[0]!.study, series: ct[0]!.series, instances: ct };
}

/**
 * Retries a retryable DicomwebError up to `retries` times, waiting what the archive asked for
 * (capped at 20 ms, so tests stay quick); records each attempt's error.
 */
export function retrying(retries: number, errors: DicomwebError[] = []): RetryRunner {
  return async (operation) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await operation(attempt);
      } catch (err) {
        if (!(err instanceof DicomwebError)) throw err;
        errors.push(err);
        if (!err.retryable || attempt > retries) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.min(err.retryAfterMs ?? 0, 20)));
      }
    }
  };
}

export const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
