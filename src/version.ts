import { packageManifest } from './package-files.js';

// From package.json, so the version in figures and reports can never drift from the published one.
export const VERSION: string = packageManifest().version;
