// A real single-node Slurm cluster from Debian's packages (munge, slurmctld, slurmd), started for
// a test without systemd: its own munge key and socket, its own slurm.conf on free ports, state
// in a temporary folder, each daemon a child process stopped by its PID. What it takes, found
// on Debian 12 (Slurm 22.05): munge authentication (22.05 has no auth/slurm), a socket folder
// 0755 and a key 0600, munged --force when a parent folder is group-writable without the sticky
// bit, SLURM_CONF exported for the client commands, process tracking and task plugins that need
// no cgroups, SlurmUser=root, no batch scheduling delay, no mail, and the node's own socket and
// core layout as `slurmd -C` reports it.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { access, chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { deadPort } from './net.js';

const PROGRAMS = [
  '/usr/sbin/munged',
  '/usr/sbin/slurmctld',
  '/usr/sbin/slurmd',
  '/usr/bin/sbatch',
  '/usr/bin/squeue',
  // The real-MITK task runs its Workbench under a virtual display.
  '/usr/bin/xvfb-run',
];

/** Why this machine cannot run the cluster, or undefined when it can. */
export async function slurmUnavailable(): Promise<string | undefined> {
  if (process.platform !== 'linux') return 'Slurm runs on Linux only';
  if (process.getuid?.() !== 0) return 'starting slurmd and munged needs root';
  for (const program of PROGRAMS) {
    try {
      await access(program);
    } catch {
      return `${program} is not installed (Debian: apt-get install slurmctld slurmd slurm-client munge xvfb)`;
    }
  }
  return undefined;
}

export interface SlurmCluster {
  /** The environment the client commands (sbatch, squeue, scancel) need. */
  env: Record<string, string>;
  dir: string;
  /** Runs a Slurm client command; rejects with its output when it exits non-zero. */
  client(program: string, args: readonly string[], cwd?: string): Promise<string>;
  /** Waits until the queue is empty. */
  drained(timeoutMs: number): Promise<void>;
  /** Cancels what is left, stops the daemons by PID and removes the folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Runs a program; its output, or a rejection with it. */
function run(program: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(program, args, { env, cwd, timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${program} ${args.join(' ')}: ${err.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}

/** The node's line of `slurmd -C` without its name: CPUs, boards, sockets, cores, threads, memory. */
async function nodeLayout(): Promise<string> {
  const out = await run('/usr/sbin/slurmd', ['-C'], process.env);
  const line = out.split('\n').find((l) => l.startsWith('NodeName='));
  if (!line) throw new Error(`slurmd -C printed no node: ${out}`);
  return line
    .split(/\s+/)
    .filter((f) => /^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore|RealMemory)=/.test(f))
    .join(' ');
}

export async function startSlurm(): Promise<SlurmCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-slurm-'));
  const children: ChildProcess[] = [];
  const logs = join(dir, 'log');
  const munge = join(dir, 'munge');
  const conf = join(dir, 'slurm.conf');
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', SLURM_CONF: conf };
  const clientEnv = { ...process.env, ...env };
  let stopped = false;
  /** Daemons that exited before they were stopped, and what they said: the first thing to read when a wait times out. */
  const died: string[] = [];

  const daemon = async (program: string, args: string[]): Promise<ChildProcess> => {
    const child = spawn(program, args, { env: clientEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('exit', (code, signal) => {
      if (!stopped) died.push(`${program} exited (${code ?? signal}): ${stderr}`);
    });
    return child;
  };

  const cluster: SlurmCluster = {
    env,
    dir,
    client: (program, args, cwd) => run(program, args, clientEnv, cwd),
    async drained(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const queue = (await run('/usr/bin/squeue', ['-h', '-o', '%i %T %R'], clientEnv)).trim();
        if (queue === '') return;
        if (Date.now() > deadline)
          throw new Error(`the queue did not empty within ${timeoutMs} ms:\n${queue}\n${died.join('\n')}`);
        await sleep(250);
      }
    },
    async stop() {
      if (stopped) return;
      // Jobs first, while slurmctld can still end them; then the daemons, newest first.
      await run('/usr/bin/scancel', ['--full', '--user', 'root'], clientEnv).catch(() => undefined);
      if (children.length > 1) await cluster.drained(15_000).catch(() => undefined);
      stopped = true;
      for (const child of [...children].reverse()) await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    },
  };

  try {
    await mkdir(munge, { mode: 0o755 });
    await mkdir(logs);
    await mkdir(join(dir, 'state'));
    await mkdir(join(dir, 'spool'));
    // munged refuses a socket folder others cannot reach (mkdtemp makes it 0700) and a key others can read.
    await chmod(dir, 0o755);
    await chmod(munge, 0o755);
    await writeFile(join(munge, 'munge.key'), randomBytes(1024), { mode: 0o600 });
    const socket = join(munge, 'munge.socket');
    await daemon('/usr/sbin/munged', [
      '--foreground',
      '--force',
      `--socket=${socket}`,
      `--key-file=${join(munge, 'munge.key')}`,
      `--pid-file=${join(munge, 'munged.pid')}`,
      `--seed-file=${join(munge, 'munged.seed')}`,
      `--log-file=${join(logs, 'munged.log')}`,
    ]);
    await waitFor(() => access(socket), 10_000, 'munged did not create its socket');

    const host = hostname().split('.')[0]!;
    const [ctlPort, dPort] = [await deadPort(), await deadPort()];
    await writeFile(
      conf,
      [
        'ClusterName=wbplay',
        `SlurmctldHost=${host}(127.0.0.1)`,
        `SlurmctldPort=${ctlPort}`,
        `SlurmdPort=${dPort}`,
        'AuthType=auth/munge',
        'CredType=cred/munge',
        `AuthInfo=socket=${socket}`,
        'SlurmUser=root',
        'SlurmdUser=root',
        `StateSaveLocation=${join(dir, 'state')}`,
        `SlurmdSpoolDir=${join(dir, 'spool')}`,
        `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
        `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
        `SlurmctldLogFile=${join(logs, 'slurmctld.log')}`,
        `SlurmdLogFile=${join(logs, 'slurmd.log')}`,
        'ProctrackType=proctrack/linuxproc',
        'TaskPlugin=task/none',
        'SchedulerType=sched/backfill',
        'SchedulerParameters=batch_sched_delay=0',
        'SelectType=select/cons_tres',
        'SelectTypeParameters=CR_Core',
        'MailProg=/bin/true',
        'ReturnToService=2',
        'JobAcctGatherType=jobacct_gather/none',
        'AccountingStorageType=accounting_storage/none',
        'MpiDefault=none',
        // A cancelled task's wbplay gets SIGTERM, and this long to write its report before SIGKILL.
        'KillWait=30',
        `NodeName=${host} NodeAddr=127.0.0.1 ${await nodeLayout()} State=UNKNOWN`,
        `PartitionName=test Nodes=${host} Default=YES MaxTime=INFINITE State=UP`,
        '',
      ].join('\n'),
    );
    await daemon('/usr/sbin/slurmctld', ['-D', '-f', conf]);
    await daemon('/usr/sbin/slurmd', ['-D', '-f', conf]);
    await waitFor(
      async () => {
        const state = (await run('/usr/bin/sinfo', ['-h', '-o', '%T'], clientEnv)).trim();
        if (state !== 'idle') throw new Error(`node ${state}`);
      },
      30_000,
      'the node did not come up idle',
      async () =>
        [...died, (await readFile(join(logs, 'slurmctld.log'), 'utf8').catch(() => '')).slice(-2000)].join('\n'),
    );
    return cluster;
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}

async function waitFor(
  check: () => Promise<unknown>,
  timeoutMs: number,
  what: string,
  details: () => Promise<string> = () => Promise.resolve(''),
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what}: ${(err as Error).message}\n${await details()}`);
      await sleep(100);
    }
  }
}

/** SIGTERM, then SIGKILL if it has not exited in 10 s; by the child's own PID. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killed);
}
