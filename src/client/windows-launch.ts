import { execFile, spawnSync } from 'node:child_process';

/**
 * Starting and stopping the Workbench on Windows, where it ships as a batch wrapper that starts
 * MitkWorkbench.exe detached (`start /B`) and exits: the process wbplay started is not the one
 * that serves the API, and signals do not exist. As the MITK team's client does, the workbench
 * is stopped by its port: every process listening on it (from `netstat -ano`) and the wrapper
 * lose their whole process trees (`taskkill /F /T`).
 */

/** How a batch wrapper is started: through cmd.exe (Node refuses to spawn .bat/.cmd directly). */
export function windowsCommand(
  executable: string,
  args: readonly string[],
): { command: string; args: string[]; verbatim: boolean } {
  if (!/\.(bat|cmd)$/i.test(executable)) return { command: executable, args: [...args], verbatim: false };
  const line = [executable, ...args].map(quoteForCmd).join(' ');
  // /d: no AutoRun commands; /s /c "...": cmd strips exactly the outer quotes and runs the rest.
  return { command: 'cmd.exe', args: ['/d', '/s', '/c', `"${line}"`], verbatim: true };
}

/** One argument of a cmd.exe line: quoted, inner quotes doubled, so spaces and `&` stay inside it. */
function quoteForCmd(arg: string): string {
  return `"${arg.replace(/"/g, '""')}"`;
}

/** The system calls of a stop, replaceable so tests play Windows on any machine. */
export interface WindowsCalls {
  /** Runs a program and gives its standard output (empty when it failed). */
  run(program: string, args: readonly string[]): Promise<string>;
}

export const WINDOWS_CALLS: WindowsCalls = {
  run: (program, args) =>
    new Promise((resolve) => {
      execFile(program, [...args], { windowsHide: true, timeout: 15_000 }, (_err, stdout) => resolve(String(stdout)));
    }),
};

/**
 * The PIDs listening on `port`, from `netstat -ano` output: rows whose local address ends in
 * `:<port>` and whose foreign address ends in `:0` (a listener), read by position, not by the
 * localised column titles.
 */
export function listenersOf(netstat: string, port: number): number[] {
  const pids = new Set<number>();
  for (const line of netstat.split(/\r?\n/)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 4 || !/^TCP/i.test(cols[0] ?? '')) continue;
    const [local, foreign] = [cols[1] ?? '', cols[2] ?? ''];
    const pid = Number(cols.at(-1));
    if (local.endsWith(`:${port}`) && foreign.endsWith(':0') && Number.isInteger(pid) && pid > 0) pids.add(pid);
  }
  return [...pids];
}

/**
 * Stops a workbench started through a wrapper: the trees of every listener on its port (IPv4
 * and IPv6) and of the wrapper itself, forcibly, as Windows has no polite signal for a GUI
 * program started from a console.
 */
export async function stopWindowsWorkbench(
  wrapperPid: number | undefined,
  port: number,
  calls: WindowsCalls = WINDOWS_CALLS,
): Promise<number[]> {
  const tables = await Promise.all([
    calls.run('netstat', ['-ano', '-p', 'TCP']),
    calls.run('netstat', ['-ano', '-p', 'TCPv6']),
  ]);
  const pids = new Set(tables.flatMap((t) => listenersOf(t, port)));
  if (wrapperPid !== undefined) pids.add(wrapperPid);
  for (const pid of pids) await calls.run('taskkill', ['/F', '/T', '/PID', String(pid)]);
  return [...pids];
}

/** For the exit handler, where nothing asynchronous runs any more: the wrapper's tree only. */
export function killTreeSync(pid: number): void {
  spawnSync('taskkill', ['/F', '/T', '/PID', String(pid)], { windowsHide: true, timeout: 5_000 });
}
