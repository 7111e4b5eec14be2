import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { killTreeSync } from './windows-launch.js';

/**
 * Keeps launched workbenches from outliving this process. Each one runs in its own process
 * group (so its helpers go with it) and is tracked here: on `exit`, SIGINT and SIGTERM the
 * groups get SIGTERM. A process killed outright (SIGKILL) runs no handler, so each group also
 * gets a tiny watchdog process holding a pipe from us: when the pipe closes, whatever the
 * reason, the watchdog terminates the group, and kills it if it is still there 10 s later.
 */

const live = new Map<number, ChildProcess>();
let installed = false;

// argv[1] is the process group id. Exits on its own once the group is gone.
const WATCHDOG = `
const pg = Number(process.argv[1]);
const alive = () => { try { process.kill(-pg, 0); return true; } catch { return false; } };
const signal = (s) => { try { process.kill(-pg, s); } catch {} };
setInterval(() => { if (!alive()) process.exit(0); }, 1000);
process.stdin.on('data', () => {});
process.stdin.on('close', () => {
  signal('SIGTERM');
  setTimeout(() => { signal('SIGKILL'); process.exit(0); }, 10000);
});
`;

export function guard(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  live.set(pid, child);
  install();
  if (process.platform !== 'win32') {
    const dog = spawn(process.execPath, ['-e', WATCHDOG, String(pid)], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    dog.on('error', () => {});
    dog.unref();
    (dog.stdin as unknown as Socket | null)?.unref();
  }
  child.once('exit', () => {
    live.delete(pid);
    if (live.size === 0) uninstall();
  });
}

/** Sends `signal` to the child's whole process group (falls back to the child alone). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // Windows has no process groups and no polite signal: the wrapper's tree ends at once.
    if (process.platform === 'win32') killTreeSync(child.pid);
    else process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

function terminateAll(): void {
  for (const child of live.values()) signalGroup(child, 'SIGTERM');
}

function onExit(): void {
  terminateAll();
}

function onSignal(signal: NodeJS.Signals): void {
  terminateAll();
  uninstall();
  // Listening to a signal replaces Node's default of exiting; when nobody else listens, end
  // the process the way the signal would have.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', onExit);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', onExit);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}
