import { spawnSync } from 'node:child_process';

/**
 * The "Error" lines dicom3tools' IOD validator prints for a file (it reports on standard error);
 * warnings are left out. A validator that cannot run at all throws, so a missing tool never
 * passes for a clean file.
 */
export function dciodvfyErrors(file: string): string[] {
  const out = spawnSync('dciodvfy', [file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (out.error) throw out.error;
  const lines = `${out.stderr}\n${out.stdout}`.split('\n');
  if (lines.some((l) => /^Abort\b/.test(l))) throw new Error(`dciodvfy could not check ${file}: ${out.stderr}`);
  return lines.filter((l) => l.includes('Error - '));
}

/**
 * A `skip` option for a test that needs dciodvfy: outside CI a machine without it skips, saying
 * which Debian package brings it; with CI=true the test runs (and fails without the tool).
 */
export function needsDciodvfy(): string | false {
  if (process.env.CI === 'true') return false;
  const found = spawnSync('sh', ['-c', 'command -v dciodvfy'], { encoding: 'utf8' });
  return found.error === undefined && found.status === 0
    ? false
    : 'dciodvfy is not installed here (Debian package dicom3tools); CI installs it';
}
