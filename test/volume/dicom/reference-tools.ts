import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

/**
 * The field's reference parts these tests hold the reader against: pydicom's test files (real
 * files no one here made) and GDCM's gdcmconv. Outside CI a missing one skips the test and says
 * so; with CI=true it fails, since .ci/run installs both from Debian.
 */
const PYTHONS = ['/usr/bin/python3', 'python3'];

let python: string | undefined | null = null;

/** A Python with pydicom and numpy (the synthetic series need both), or undefined. */
export function pythonWithPydicom(): string | undefined {
  if (python !== null) return python;
  python = undefined;
  for (const candidate of PYTHONS) {
    try {
      execFileSync(candidate, ['-c', 'import pydicom, numpy'], { stdio: 'ignore' });
      python = candidate;
      break;
    } catch {
      // try the next one
    }
  }
  return python;
}

/** pydicom's data/test_files folder, found from the installed package. */
export function pydicomTestFiles(): string | undefined {
  const py = pythonWithPydicom();
  if (py === undefined) return undefined;
  const dir = execFileSync(py, ['-c', 'import pydicom, os; print(os.path.dirname(pydicom.__file__))'], {
    encoding: 'utf8',
  }).trim();
  const files = join(dir, 'data', 'test_files');
  return existsSync(files) ? files : undefined;
}

export function hasTool(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Skips (outside CI) or fails (CI=true) when `missing` names something absent. */
export function needs(t: TestContext, missing: string | undefined): boolean {
  if (missing === undefined) return true;
  if (process.env.CI === 'true') throw new Error(`${missing} is required in CI (.ci/run installs it)`);
  t.skip(`${missing} is not installed here`);
  return false;
}

/** What a test needs from the reference parts, or why it cannot run. */
export function referenceParts(tools: string[] = []): { files?: string; python?: string; missing?: string } {
  const py = pythonWithPydicom();
  if (py === undefined) return { missing: 'python3-pydicom with numpy' };
  const files = pydicomTestFiles();
  if (files === undefined) return { missing: "pydicom's test files" };
  for (const tool of tools) if (!hasTool(tool)) return { missing: tool };
  return { files, python: py };
}
