import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A package loaded when it is first needed rather than at import: window captures need neither
 * pngjs nor jpeg-js, `wbplay validate` no figure rasteriser, and loading them cost every process
 * and every reference workbench thread tens of milliseconds at start. They are CommonJS, so a
 * synchronous require serves.
 */
export function loadOnFirstUse<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
