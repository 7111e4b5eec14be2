import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's python, which has python3-pydicom; a python of its own first on PATH may not. */
export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function found(command: string, args: string[]): boolean {
  const run = spawnSync(command, args, { encoding: 'utf8' });
  return run.error === undefined && run.status === 0;
}

/**
 * A `skip` option for a test that needs a tool of the field (GDCM, dcm2niix, pydicom). Outside
 * CI a machine without it skips, saying which package brings it; in CI the test runs and fails.
 */
export function needs(tool: 'gdcmdump' | 'gdcmconv' | 'dcm2niix' | 'pydicom'): string | false {
  if (process.env.CI === 'true') return false;
  const present =
    tool === 'pydicom' ? found(PYTHON, ['-c', 'import pydicom, numpy']) : found('sh', ['-c', `command -v ${tool}`]);
  const pkg = tool === 'pydicom' ? 'python3-pydicom' : tool === 'dcm2niix' ? 'dcm2niix' : 'libgdcm-tools';
  return present ? false : `${tool} is not installed here (Debian package ${pkg}); CI installs it`;
}

/** Runs a tool and returns its standard output; a failure throws with its standard error. */
export function run(command: string, args: string[]): string {
  const out = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (out.error) throw out.error;
  if (out.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${out.status}: ${out.stderr}`);
  return out.stdout;
}
