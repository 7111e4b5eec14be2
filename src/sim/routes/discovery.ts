import type { FileAccess } from '../file-access.js';
import { json } from '../http-types.js';
import type { Router } from '../router.js';
import { API } from './request-body.js';

export interface DiscoveryContext {
  name: string;
  engineVersion: string;
  startedAt: number;
  now: () => number;
  files: FileAccess;
  maxTempDirsPerIp: number;
}

/**
 * Documentation of the release the engine version names: `<major>.<minor>` for releases,
 * nightly for development builds (patch 99), as the real server reports it.
 */
function documentationUrl(version: string): string {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  const channel = !m || m[3] === '99' ? 'nightly' : `${m[1]}.${m[2]}`;
  return `https://docs.mitk.org/${channel}/MITKRESTAPISpec.html`;
}

/** /health, /info and /config/file-access. */
export function registerDiscoveryRoutes(router: Router, ctx: DiscoveryContext): void {
  router
    .on('GET', `${API}/health`, () =>
      json(200, {
        data: {
          checks: { datastorage: 'ok' },
          status: 'healthy',
          uptime_seconds: Math.floor((ctx.now() - ctx.startedAt) / 1000),
        },
      }),
    )
    .on('GET', `${API}/info`, () =>
      json(200, {
        data: {
          api_version: 'v1',
          capabilities: { authentication: ['api-token'], transfer_modes: ['direct', 'file-reference'] },
          documentation_url: documentationUrl(ctx.engineVersion),
          // Both names: the real server writes mitk_version; the interface document calls it engine_version.
          engine_version: ctx.engineVersion,
          mitk_version: ctx.engineVersion,
          name: ctx.name,
        },
      }),
    )
    .on('GET', `${API}/config/file-access`, () => json(200, { data: ctx.files.describe(ctx.maxTempDirsPerIp) }));
}
