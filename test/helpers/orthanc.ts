// A real Orthanc archive with its DICOMweb plugin, started for a test as a child process: its own
// configuration, storage and index in a temporary folder, a free loopback port, basic auth, no
// DICOM listener and no system service. The plugins are found where Debian's packages put them
// (orthanc-dicomweb, orthanc-gdcm), asking dpkg first since their file names carry versions.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, rmSync } from 'node:fs';
import { access, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { deadPort } from './net.js';

const ORTHANC = '/usr/sbin/Orthanc';
const PACKAGES = 'apt-get install orthanc orthanc-dicomweb orthanc-gdcm';
const PLUGINS = {
  dicomweb: { pkg: 'orthanc-dicomweb', file: /^libOrthancDicomWeb\.so(\.[\d.]+)?$/ },
  gdcm: { pkg: 'orthanc-gdcm', file: /^libOrthancGdcm\.so(\.[\d.]+)?$/ },
};
const PLUGIN_DIRS = ['/usr/share/orthanc/plugins', '/usr/lib/orthanc'];
const START_TIMEOUT_MS = 15_000;

export interface Orthanc {
  /** http://127.0.0.1:PORT */
  root: string;
  /** http://127.0.0.1:PORT/dicom-web */
  dicomweb: string;
  user: string;
  password: string;
  /** Its storage folder. */
  storage: string;
  /** Uploads files through Orthanc's own REST API (POST /instances); rejects on any refusal. */
  push(files: string[]): Promise<void>;
  /** CountInstances of GET /statistics. */
  instanceCount(): Promise<number>;
  /** Stops the process by its PID and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

function stdout(program: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(program, args, { timeout: 10_000 }, (err, out) => resolve(err ? '' : out));
  });
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The plugin's library: from its package's file list, else from the folders Debian uses. */
async function findPlugin(which: keyof typeof PLUGINS): Promise<string | undefined> {
  const { pkg, file } = PLUGINS[which];
  const listed = (await stdout('dpkg', ['-L', pkg])).split('\n').filter((p) => file.test(p.split('/').pop() ?? ''));
  for (const path of listed) if (await exists(path)) return path;
  for (const dir of PLUGIN_DIRS) {
    const names = await readdir(dir).catch(() => [] as string[]);
    const name = names.find((n) => file.test(n));
    if (name) return join(dir, name);
  }
  return undefined;
}

let plugins: Promise<{ dicomweb?: string; gdcm?: string }> | undefined;
function pluginPaths(): Promise<{ dicomweb?: string; gdcm?: string }> {
  plugins ??= (async () => ({ dicomweb: await findPlugin('dicomweb'), gdcm: await findPlugin('gdcm') }))();
  return plugins;
}

/** Why this machine cannot run Orthanc with its DICOMweb plugin, or undefined when it can. */
export async function orthancUnavailable(): Promise<string | undefined> {
  if (process.platform !== 'linux') return 'the Orthanc of these tests is Debian-packaged, Linux only';
  if (!(await exists(ORTHANC))) return `${ORTHANC} is not installed (Debian: ${PACKAGES})`;
  const found = await pluginPaths();
  for (const which of ['dicomweb', 'gdcm'] as const) {
    if (!found[which]) return `Orthanc's ${which} plugin is not installed (Debian: ${PACKAGES})`;
  }
  return undefined;
}

/** A `skip` option: the reason outside CI when Orthanc cannot run here; in CI the test runs and fails. */
export async function orthancSkip(): Promise<string | false> {
  if (process.env.CI === 'true') return false;
  const why = await orthancUnavailable();
  return why === undefined ? false : `no Orthanc on this machine: ${why}; CI installs it`;
}

/** An Orthanc configuration file as an object: JSON with the comments Orthanc allows in it. */
export async function readOrthancConfig(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(withoutComments(await readFile(path, 'utf8'))) as Record<string, unknown>;
}

/** The text with its comments blanked out; `//` and `/*` inside strings are left alone. */
function withoutComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      out += text.slice(i, end + 1);
      i = end;
    } else if (c === '/' && text[i + 1] === '/') {
      const newline = text.indexOf('\n', i);
      i = (newline < 0 ? text.length : newline) - 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) throw new Error('a comment that never closes');
      out += ' ';
      i = close + 1;
    } else out += c;
  }
  return out;
}

/** Archives not stopped yet, killed and removed if the test process ends without stopping them. */
const live = new Map<ChildProcess, string>();
let guarded = false;
function guard(child: ChildProcess, dir: string): void {
  live.set(child, dir);
  if (guarded) return;
  guarded = true;
  const killAll = (): void => {
    for (const [c, d] of live) {
      c.kill('SIGKILL');
      rmSync(d, { recursive: true, force: true });
    }
  };
  process.on('exit', killAll);
  // A signal skips 'exit': kill the children, then let the signal end this process as it would have.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      process.kill(process.pid, signal);
    });
  }
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/**
 * Starts Orthanc. `config` is laid over the test configuration (it may replace the plugins or
 * the DICOMweb section, as the example configuration does); the port, the storage and index
 * folders and the test's user are always the harness's, so the URLs and credentials it returns hold.
 */
export async function startOrthanc(
  options: { user?: string; password?: string; config?: Record<string, unknown> } = {},
): Promise<Orthanc> {
  const why = await orthancUnavailable();
  if (why !== undefined) throw new Error(`Orthanc cannot run here: ${why}`);
  const { dicomweb, gdcm } = await pluginPaths();
  const user = options.user ?? 'wbplay';
  const password = options.password ?? 'wbplay-test-secret';
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-orthanc-'));
  const storage = join(dir, 'storage');
  const log = join(dir, 'orthanc.log');
  const port = await deadPort();
  const extra = options.config ?? {};
  const config: Record<string, unknown> = {
    Name: 'wbplay-test',
    HttpServerEnabled: true,
    RemoteAccessAllowed: false,
    AuthenticationEnabled: true,
    DicomServerEnabled: false,
    OrthancExplorerEnabled: false,
    WebDavEnabled: false,
    // Nothing outlives a test: no jobs to resume at the next start.
    SaveJobs: false,
    HttpDescribeErrors: true,
    Plugins: [dicomweb, gdcm],
    DicomWeb: { Enable: true, Root: '/dicom-web/', EnableWado: false, Ssl: false },
    ...extra,
    HttpPort: port,
    StorageDirectory: storage,
    IndexDirectory: storage,
    RegisteredUsers: { ...(extra.RegisteredUsers as Record<string, string> | undefined), [user]: password },
  };
  if (config.DicomServerEnabled === true) config.DicomPort = await deadPort();
  const configPath = join(dir, 'orthanc.json');
  await writeFile(configPath, JSON.stringify(config, null, 2));

  const fd = openSync(log, 'a');
  const child = spawn(ORTHANC, [configPath], { cwd: dir, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  guard(child, dir);
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `Orthanc exited (${code ?? signal})`));
  child.once('error', (err) => (exited = `Orthanc did not start: ${err.message}`));

  const root = `http://127.0.0.1:${port}`;
  const authorization = basic(user, password);
  const api = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const res = await fetch(`${root}${path}`, { ...init, headers: { authorization, ...init.headers } });
    if (!res.ok) throw new Error(`Orthanc ${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  const logTail = async (): Promise<string> => (await readFile(log, 'utf8').catch(() => '')).slice(-3000);

  let stopped = false;
  const orthanc: Orthanc = {
    root,
    dicomweb: `${root}/dicom-web`,
    user,
    password,
    storage,
    async push(files) {
      // A few uploads at a time: Orthanc stores in parallel, and a series of a hundred files stays quick.
      const queue = [...files];
      const worker = async (): Promise<void> => {
        for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
          const res = await api('/instances', { method: 'POST', body: await readFile(file) });
          const answer = (await res.json()) as { Status?: string };
          if (answer.Status !== 'Success' && answer.Status !== 'AlreadyStored')
            throw new Error(`Orthanc refused ${file}: ${JSON.stringify(answer)}`);
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
    },
    async instanceCount() {
      const stats = (await (await api('/statistics')).json()) as { CountInstances: number };
      return stats.CountInstances;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopChild(child);
      live.delete(child);
      await rm(dir, { recursive: true, force: true });
    },
  };

  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (exited !== undefined) throw new Error(`${exited} before it answered`);
      try {
        await api('/system', { signal: AbortSignal.timeout(1000) });
        return orthanc;
      } catch (err) {
        if (Date.now() > deadline)
          throw new Error(
            `Orthanc did not answer GET /system within ${START_TIMEOUT_MS} ms: ${(err as Error).message}`,
          );
      }
      await sleep(50);
    }
  } catch (err) {
    const tail = await logTail();
    await orthanc.stop();
    throw new Error(`${(err as Error).message}\nOrthanc's log:\n${tail}`);
  }
}

/** SIGTERM, then SIGKILL if it has not exited in 5 s; by the child's own PID. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const killed = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killed);
}
