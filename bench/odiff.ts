import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const VERSION = '4.5.0';
const PREFIX = join('.bench-tmp', 'odiff');

/**
 * Path of the odiff binary used as the comparison benchmark's baseline, installed on first
 * use. It is not a devDependency: the registry serves its binary package for this platform
 * only, and a lock file without the other platforms' entries breaks `npm ci`.
 */
export function ensureOdiff(): string | undefined {
  const bin = join(PREFIX, 'node_modules', '.bin', 'odiff');
  if (!existsSync(bin)) {
    try {
      execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--prefix', PREFIX, `odiff-bin@${VERSION}`], {
        stdio: 'ignore',
      });
    } catch {
      return undefined;
    }
  }
  return existsSync(bin) ? bin : undefined;
}
