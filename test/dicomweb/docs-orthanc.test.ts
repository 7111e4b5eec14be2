// What the documentation shows of archives, run as shown against a real Orthanc: the example
// playbooks that search, retrieve from or store into an archive (left out of the reference
// workbench's docs test), and the shell commands of docs/dicomweb.md, which start Orthanc from
// examples/orthanc/orthanc.json, push the demo tree into it and run playbooks/pacs.yaml.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { writeDemoDicom } from '../../src/sim/demo-dicom.js';
import { ARCHIVE_PAGES, EXAMPLE_ARCHIVE, archiveCommands, archiveExamples } from '../helpers/archive-docs.js';
import { root, wbplay } from '../helpers/cohort.js';
import { parseCommand } from '../helpers/doc-commands.js';
import { orthancSkip, readOrthancConfig, startOrthanc, type Orthanc } from '../helpers/orthanc.js';

const skip = await orthancSkip();
let dir = '';
let orthanc: Orthanc;

/** The example configuration's user, which the page's commands use as written. */
const USER = 'wbplay';
const PASSWORD = 'change-me';

function sh(command: string, cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { cwd, env: { PATH: process.env.PATH } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe('the documentation of archives, against a real Orthanc', { skip, timeout: 600_000 }, () => {
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wbplay-archive-docs-'));
    const config = await readOrthancConfig(join(root, 'examples', 'orthanc', 'orthanc.json'));
    orthanc = await startOrthanc({ user: USER, password: PASSWORD, config });
    await writeDemoData(join(dir, 'data'));
    await writeDemoDicom(join(dir, 'data'));
    // The examples name the demo tree's studies; the page's own push of it is run below too.
    const tree = await readdir(join(dir, 'data', 'dicom-studies'), { recursive: true, withFileTypes: true });
    await orthanc.push(tree.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)));
  });

  after(async () => {
    await orthanc?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("docs/dicomweb.md: its shell commands run as written, on the test's Orthanc", async () => {
    const project = join(dir, 'project');
    await mkdir(project);
    await cp(join(root, 'playbooks'), join(project, 'playbooks'), { recursive: true });
    const port = new URL(orthanc.root).port;
    const commands = await archiveCommands('docs/dicomweb.md');
    // Installing packages and stopping the system's service change the machine, not the project:
    // they are shown, and this test starts its own Orthanc from the example configuration instead.
    const system = commands.filter((c) => c.startsWith('sudo ') || c.startsWith('Orthanc '));
    assert.deepEqual(system, [
      'sudo apt-get install orthanc orthanc-dicomweb orthanc-gdcm',
      'sudo systemctl stop orthanc',
      'Orthanc examples/orthanc/orthanc.json',
    ]);
    const rest = commands.filter((c) => !system.includes(c));
    assert.ok(rest.length >= 3, rest.join('\n'));
    for (const command of rest) {
      const local = command.replaceAll('127.0.0.1:8042', `127.0.0.1:${port}`);
      if (local.includes('npx wbplay')) {
        const { env, args } = parseCommand(local);
        const r = await wbplay(args, project, {
          ...env,
          WBPLAY_ARCHIVE: orthanc.dicomweb,
          XDG_CACHE_HOME: join(dir, 'cache'),
        });
        assert.equal(r.code, 0, `${command}\n${r.stdout}\n${r.stderr}`);
      } else {
        const r = await sh(local, project);
        assert.equal(r.code, 0, `${command}\n${r.out}`);
      }
    }
    // The tree is in the archive, and pacs.yaml stored its captures back: two per CT series.
    assert.ok((await orthanc.instanceCount()) > 100);
  });

  for (const page of ARCHIVE_PAGES) {
    test(`${page}: every example playbook that needs an archive runs on the test's Orthanc and passes`, async () => {
      const examples = await archiveExamples(page);
      assert.ok(examples.length >= 1, `${page} shows no such example`);
      for (const [i, example] of examples.entries()) {
        const folder = join(dir, `${page.replace(/\W/g, '-')}-${i}`);
        await mkdir(folder);
        await symlink(join(dir, 'data'), join(folder, 'data'));
        await writeFile(join(folder, 'example.yaml'), example.text.replaceAll(EXAMPLE_ARCHIVE, orthanc.dicomweb));
        const r = await wbplay(['run', 'example.yaml', '--reporter', 'line'], folder, {
          DICOMWEB_USER: USER,
          DICOMWEB_PASSWORD: PASSWORD,
          XDG_CACHE_HOME: join(dir, 'cache'),
        });
        assert.equal(r.code, 0, `${page}:${example.line}\n${r.stdout}\n${r.stderr}`);
      }
    });
  }
});
