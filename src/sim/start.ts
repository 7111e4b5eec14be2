import type { ReferenceWorkbenchHandle, ReferenceWorkbenchOptions } from './server.js';
import type { WorkbenchInternals } from './workbench.js';

/**
 * Starts the reference workbench on `host:port` (127.0.0.1 and a free port by default). Its
 * code (server, datastore, renderer) is loaded on the first start, so a program that imports
 * the package to drive a workbench by URL does not load it: about 40 ms of CPU at start-up.
 */
export async function startReferenceWorkbench(
  options: ReferenceWorkbenchOptions = {},
  internals: WorkbenchInternals = {},
): Promise<ReferenceWorkbenchHandle> {
  return (await import('./server.js')).startReferenceWorkbench(options, internals);
}
