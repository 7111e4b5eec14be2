// What a user downloads and waits for: the packed size (budget 1 MB), the size installed with
// its runtime dependencies on this platform, and how long `npx wbplay --help` takes to start,
// beside `node -e 0` (the floor any Node program pays) measured in the same runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_CLI, buildPackage } from './built.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const PACKED_BUDGET = 1_000_000;
const RUNS = 9;

interface LockEntry {
  dev?: boolean;
  optional?: boolean;
}

/** Bytes of every file under a folder (symbolic links not followed). */
function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += folderBytes(path);
    else if (entry.isFile()) total += lstatSync(path).size;
  }
  return total;
}

/**
 * The runtime dependency tree as `npm install wbplay` lays it out here: every package of the lock
 * that is not a development one, where it is installed (optional packages of other platforms are not).
 */
function installedDependencies(): { count: number; bytes: number } {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  let count = 0;
  let bytes = 0;
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev === true || !existsSync(join(root, path))) continue;
    count++;
    // A nested node_modules is counted as its own entry of the lock.
    bytes += folderBytes(join(root, path)) - nestedBytes(join(root, path));
  }
  return { count, bytes };
}

function nestedBytes(dir: string): number {
  const nested = join(dir, 'node_modules');
  return existsSync(nested) ? folderBytes(nested) : 0;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function timed(command: string, args: string[], cwd: string): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { cwd, stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const kB = (n: number): string => `${(n / 1000).toFixed(0)} kB`;

export default async function bench(): Promise<void> {
  buildPackage();
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as { size: number; unpackedSize: number; entryCount: number }[];
  const deps = installedDependencies();
  console.log(
    `packed: ${kB(packed!.size)} (${packed!.entryCount} files; budget ${kB(PACKED_BUDGET)}: ${packed!.size <= PACKED_BUDGET ? 'within' : 'OVER'})`,
  );
  console.log(
    `installed: ${kB(packed!.unpackedSize + deps.bytes)} (wbplay ${kB(packed!.unpackedSize)} + ${deps.count} runtime packages ${kB(deps.bytes)}, on ${process.platform}-${process.arch})`,
  );

  // A project with wbplay installed as npm links it, so npx finds the bin as it does for a user.
  const project = await mkdtemp(join(tmpdir(), 'wbplay-bench-package-'));
  try {
    await writeFile(join(project, 'package.json'), '{ "name": "bench-project", "private": true }\n');
    await mkdir(join(project, 'node_modules', '.bin'), { recursive: true });
    await symlink(root, join(project, 'node_modules', 'wbplay'));
    const bin = join(project, 'node_modules', '.bin', 'wbplay');
    await symlink(relative(dirname(bin), join(project, 'node_modules', 'wbplay', relative(root, PACKAGE_CLI))), bin);
    const times = { node: [] as number[], help: [] as number[], npx: [] as number[] };
    timed('npx', ['--no-install', 'wbplay', '--help'], project); // warm-up: npm's own caches
    for (let i = 0; i < RUNS; i++) {
      times.node.push(timed(process.execPath, ['-e', '0'], project));
      times.help.push(timed(process.execPath, [bin, '--help'], project));
      times.npx.push(timed('npx', ['--no-install', 'wbplay', '--help'], project));
    }
    const base = median(times.node);
    console.log(`start (medians of ${RUNS}, interleaved):`);
    console.log(`  node -e 0                ${base.toFixed(0)} ms`);
    console.log(
      `  node wbplay --help       ${median(times.help).toFixed(0)} ms (${(median(times.help) / base).toFixed(2)}×)`,
    );
    console.log(
      `  npx wbplay --help        ${median(times.npx).toFixed(0)} ms (${(median(times.npx) / base).toFixed(2)}×; npx itself is part of it)`,
    );
  } finally {
    await rm(project, { recursive: true, force: true });
  }
}
