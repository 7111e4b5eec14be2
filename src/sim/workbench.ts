import { resolveConfig, WorkbenchConfigError, type ReferenceWorkbenchOptions, type WorkbenchConfig } from './config.js';
import { DataStore } from './datastore.js';
import { EventLog } from './event-log.js';
import { FaultInjector } from './faults.js';
import { FileAccess } from './file-access.js';
import { createHandler, type Handle } from './handler.js';
import { ImageReadError, readImageFile } from '../volume/read-image.js';
import { RateLimiter } from './middleware.js';
import { Router } from './router.js';
import { registerDiscoveryRoutes } from './routes/discovery.js';
import { registerNodeDataRoutes } from './routes/node-data.js';
import { registerNodeRoutes } from './routes/nodes.js';
import { stem } from './routes/node-upload.js';
import { registerPropertyRoutes } from './routes/properties.js';
import { registerRenderingRoutes } from './routes/rendering.js';
import { TempDirs } from './temp-dirs.js';
import { Viewer } from './viewer/viewer.js';
import { basename } from 'node:path';

/** The reference workbench without sockets: tests can call `handle` directly. */
export interface Workbench {
  handle: Handle;
  store: DataStore;
  viewer: Viewer;
  events: EventLog;
  config: WorkbenchConfig;
  temps: TempDirs;
  /** Removes the download directories and closes the event log. */
  close(): Promise<void>;
}

/** Seams for tests; not part of the public options. */
export interface WorkbenchInternals {
  /** Clock of the rate limiter, uptime and event times. */
  now?: () => number;
}

/**
 * Assembles the data storage, viewer, routes and middleware, and loads the `open` files as
 * top-level nodes (then fits the views to them, as opening files in the workbench does).
 */
export async function createWorkbench(
  options: ReferenceWorkbenchOptions = {},
  internals: WorkbenchInternals = {},
): Promise<Workbench> {
  const config = resolveConfig(options);
  const now = internals.now ?? Date.now;
  const store = new DataStore();
  const viewer = new Viewer(store, { inactive: config.inactive });
  const files = new FileAccess(config.allowedDirs);
  const temps = new TempDirs(config.maxTempDirsPerIp);

  for (const file of config.open) {
    try {
      store.create({ name: stem(basename(file)), volume: await readImageFile(file) });
    } catch (err) {
      if (err instanceof ImageReadError) throw new WorkbenchConfigError('open', `cannot load ${file}: ${err.message}`);
      throw err;
    }
  }
  if (config.open.length > 0) viewer.reinit();

  const router = new Router();
  registerDiscoveryRoutes(router, {
    name: config.name,
    engineVersion: config.engineVersion,
    startedAt: now(),
    now,
    files,
    maxTempDirsPerIp: config.maxTempDirsPerIp,
  });
  registerNodeRoutes(router, { store, files, temps });
  registerNodeDataRoutes(router, { store, files, temps });
  registerPropertyRoutes(router, { store, files, temps });
  registerRenderingRoutes(router, { store, viewer });

  const events = new EventLog(config.events);
  const handle = createHandler({
    config,
    router,
    faults: new FaultInjector(config.faults),
    rateLimiter: config.rateLimitPerMinute === undefined ? undefined : new RateLimiter(config.rateLimitPerMinute, now),
    events,
    now,
  });
  return {
    handle,
    store,
    viewer,
    events,
    config,
    temps,
    close: async () => {
      temps.removeAll();
      await events.close();
    },
  };
}
