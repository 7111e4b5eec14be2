import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { guard, signalGroup } from './child-guard.js';
import { connect, type WorkbenchClient } from './client.js';
import { WorkbenchApiError, WorkbenchLaunchError, WorkbenchUsageError } from './errors.js';
import { stopWindowsWorkbench, windowsCommand } from './windows-launch.js';

/** The port range the workbench documents for its REST server, used by launch and discovery. */
export const PORT_RANGE: readonly number[] = Array.from({ length: 20 }, (_, i) => 8080 + i);

export interface LaunchOptions {
  /** Workbench executable; default the `MITK_WORKBENCH` environment variable. */
  executable?: string;
  /** Default: the first port of 8080-8099 that can be bound on 127.0.0.1. */
  port?: number;
  /** Default: 32 random hex characters. */
  token?: string;
  extraArgs?: string[];
  /** How long to wait for the health probe to answer (default 60 s; a first start can be slow). */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

export interface LaunchedWorkbench {
  url: string;
  port: number;
  token: string;
  pid: number;
  client: WorkbenchClient;
  /**
   * SIGTERM, then SIGKILL after 10 s; resolves when the process is gone. On Windows the process
   * trees of the port's listeners and of the wrapper are ended (taskkill /F /T).
   */
  stop(): Promise<void>;
}

const PROBE_INTERVAL_MS = 500;
const STOP_GRACE_MS = 10_000;
const PREFS_HINT =
  'the workbench could not apply the preferences override; start it once by hand so it creates its preference store, then try again';

/**
 * Starts a workbench with its REST server enabled on `port` through a preferences-override
 * file (a file, not inline XML, so the token does not show in process listings), waits until
 * `/api/v1/health` answers, and returns a handle. Fails fast when the process exits with an
 * error, and kills it on timeout. The process does not outlive this one (see child-guard).
 */
export async function launchWorkbench(opts: LaunchOptions = {}): Promise<LaunchedWorkbench> {
  const env = opts.env ?? process.env;
  const executable = opts.executable ?? env.MITK_WORKBENCH;
  if (!executable) {
    throw new WorkbenchUsageError(
      'NO_EXECUTABLE',
      'no workbench executable: pass executable or set MITK_WORKBENCH to the MitkWorkbench program',
    );
  }
  const port = opts.port ?? (await firstFreePort(PORT_RANGE));
  const token = opts.token ?? randomBytes(16).toString('hex');
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-launch-'));
  const prefs = join(dir, 'mitk_prefs.xml');
  const stderrPath = join(dir, 'mitk_stderr.log');
  await writeFile(prefs, preferencesXml(port, token), { mode: 0o600 });

  const errFd = openSync(stderrPath, 'w');
  let child: ChildProcess;
  try {
    const args = ['--MITK.preferences-override', `@${prefs}`, ...(opts.extraArgs ?? [])];
    const windows = process.platform === 'win32';
    // On Windows the Workbench is a batch wrapper, started through cmd.exe.
    const started = windows ? windowsCommand(executable, args) : { command: executable, args, verbatim: false };
    child = spawn(started.command, started.args, {
      detached: !windows,
      windowsHide: true,
      windowsVerbatimArguments: started.verbatim,
      stdio: ['ignore', 'ignore', errFd],
      env,
    });
  } finally {
    closeSync(errFd);
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void exited.then((e) => (exit = e));
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new WorkbenchLaunchError(
          'EXECUTABLE_NOT_FOUND',
          `cannot start ${executable}: ${err.code ?? err.message}; check the path or MITK_WORKBENCH`,
        ),
      ),
    );
  }).catch(async (err: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  guard(child);

  const url = `http://localhost:${port}`;
  const client = connect({ url, token });
  const stderrTail = async (): Promise<string> => (await readFile(stderrPath, 'utf8').catch(() => '')).slice(-2000);
  const fail = async (err: WorkbenchLaunchError | WorkbenchApiError): Promise<never> => {
    await stopProcess(child, exited, () => exit !== undefined, port);
    await client.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exit && (exit.code !== 0 || exit.signal)) {
      const tail = await stderrTail();
      const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
      const hint = tail.includes('Cannot apply preferences') ? `; ${PREFS_HINT}` : '';
      return fail(
        new WorkbenchLaunchError(
          'EXITED',
          `${executable} ${how} before its REST server answered${hint}${tail ? `\n${tail.trim()}` : ''}`,
          exit.code,
          tail,
        ),
      );
    }
    try {
      await client.health({ timeoutMs: Math.max(100, Math.min(2000, deadline - Date.now())) });
      break;
    } catch (err) {
      // Not listening yet is expected; an HTTP error means something else answers there.
      if (err instanceof WorkbenchApiError) return fail(err);
    }
    if (Date.now() >= deadline) {
      const early = exit
        ? ' (the process exited early with code 0; a wrapper script may have started it elsewhere)'
        : '';
      return fail(
        new WorkbenchLaunchError(
          'NOT_READY',
          `the workbench did not answer on port ${port} within ${timeoutMs} ms${early}`,
          exit?.code ?? null,
          await stderrTail(),
        ),
      );
    }
    // This wait keeps the process alive: once the workbench has exited, nothing else may.
    await (exit ? sleep(PROBE_INTERVAL_MS, true) : Promise.race([sleep(PROBE_INTERVAL_MS, true), exited]));
  }
  await rm(prefs, { force: true });

  const handle: LaunchedWorkbench = {
    url,
    port,
    token,
    pid: child.pid ?? -1,
    client,
    async stop() {
      await stopProcess(child, exited, () => exit !== undefined, port);
      await client.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  Object.defineProperty(handle, inspect.custom, {
    value: () => `LaunchedWorkbench { url: '${url}', pid: ${handle.pid}, token: [redacted] }`,
  });
  return handle;
}

async function stopProcess(
  child: ChildProcess,
  exited: Promise<unknown>,
  done: () => boolean,
  port: number,
): Promise<void> {
  if (process.platform === 'win32') {
    // The wrapper may be long gone while the Workbench it started serves the port.
    await stopWindowsWorkbench(child.pid, port);
    if (!done()) await Promise.race([exited, sleep(STOP_GRACE_MS)]);
    return;
  }
  if (!done()) {
    signalGroup(child, 'SIGTERM');
    const timer = sleep(STOP_GRACE_MS).then(() => 'late' as const);
    if ((await Promise.race([exited.then(() => 'gone' as const), timer])) === 'late') signalGroup(child, 'SIGKILL');
    await exited;
  }
  // Helpers the workbench started in its group go too.
  signalGroup(child, 'SIGKILL');
}

/** The preferences override of the REST plugin: enabled, started, on `port`, requiring the token. */
export function preferencesXml(port: number, token: string): string {
  const attr = (s: string): string =>
    s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return [
    "<?xml version='1.0' encoding='UTF-8'?>",
    '<preferences name="">',
    '    <preferences name="org.mitk.restapi">',
    '        <property name="enabled" value="true" />',
    '        <property name="autoStart" value="true" />',
    `        <property name="port" value="${port}" />`,
    '        <property name="requireAuth" value="true" />',
    `        <property name="apiToken" value="${attr(token)}" />`,
    '    </preferences>',
    '</preferences>',
    '',
  ].join('\n');
}

/** First port that can be bound on 127.0.0.1 (another process may still take it before the workbench does). */
export async function firstFreePort(ports: readonly number[]): Promise<number> {
  for (const port of ports) if (await canBind(port)) return port;
  throw new WorkbenchLaunchError(
    'NO_FREE_PORT',
    `none of the ports ${ports[0]}-${ports.at(-1)} is free on 127.0.0.1; pass a port`,
  );
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: '127.0.0.1', exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

export interface DiscoveredWorkbench {
  url: string;
  port: number;
}

/** Probes `http://localhost:<port>/api/v1/health` on each port at once (0.5 s each); the answering ones, by port. */
export async function discover(
  opts: { ports?: readonly number[]; timeoutMs?: number } = {},
): Promise<DiscoveredWorkbench[]> {
  const ports = opts.ports ?? PORT_RANGE;
  const found = await Promise.all(
    ports.map(async (port) => {
      const client = connect({ url: `http://localhost:${port}`, timeoutMs: opts.timeoutMs ?? 500 });
      try {
        return (await client.ping()) ? { url: client.url, port } : null;
      } finally {
        await client.close();
      }
    }),
  );
  return found.filter((f): f is DiscoveredWorkbench => f !== null).sort((a, b) => a.port - b.port);
}

/** A pause; unless `keepAlive`, it does not hold the process open by itself. */
function sleep(ms: number, keepAlive = false): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (!keepAlive) timer.unref();
  });
}
