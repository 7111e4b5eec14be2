import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { RegisterCommand } from './command.js';
import { EXIT, fail } from './errors.js';

/** Where the schemas are once wbplay is installed into the project from npm. */
const SCHEMAS = 'node_modules/wbplay/schemas';

const PLAYBOOK = `# yaml-language-server: $schema=../${SCHEMAS}/playbook.schema.json
#
# A first playbook: load a study, show it, save a figure and compare it with its golden.
# Demo data:  npx wbplay demo-data wbplay-out/demo
version: 1
name: Example
tags: [example]
vars:
  data: \${env.WBPLAY_DATA:-../wbplay-out/demo}
steps:
  - load: { file: "\${data}/ct.nrrd", as: ct, name: CT }
  - reinit: { nodes: [ct] }
  - screenshot: { of: stdmulti/axial, save: "\${out}/example-axial.png" }
  - expect_image: { of: stdmulti/axial, golden: goldens/example-axial.png, threshold: 0.1 }
`;

const CONFIG = `# yaml-language-server: $schema=./${SCHEMAS}/config.schema.json
#
# Settings for every wbplay run in this folder and below it; the command line overrides each.
out: wbplay-out
retries: 3
# url: http://localhost:8080        # a running MITK Workbench; none: the embedded reference workbench
# token_env: WORKBENCH_TOKEN        # the variable that holds its API token
# workers: 1
# reporters: [junit]                # added to report.json and report.html
# update_goldens: missing
# goldens: goldens/{project}/{playbook}/{name}.png
# projects:                         # wbplay run --project mitk-2024
#   mitk-2024:
#     url: http://localhost:8080
`;

const GITIGNORE = `# wbplay's reports, artefacts and figures
wbplay-out/
`;

const WORKFLOW = `name: wbplay
on: [push, pull_request]
jobs:
  playbooks:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - run: npm ci
      - run: npx wbplay demo-data wbplay-out/demo
      - run: npx wbplay validate playbooks
      # Goldens are committed: in CI a missing or changed golden fails the run.
      - run: npx wbplay run playbooks --reporter github,junit
        env:
          WORKBENCH_URL: \${{ vars.WORKBENCH_URL }}
          WORKBENCH_TOKEN: \${{ secrets.WORKBENCH_TOKEN }}
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: wbplay-report
          path: wbplay-out/
`;

/** What `wbplay init` writes, by path relative to the project folder. */
export const STARTER_FILES: Readonly<Record<string, string>> = {
  'playbooks/example.yaml': PLAYBOOK,
  'wbplay.config.yaml': CONFIG,
  '.gitignore': GITIGNORE,
  '.github/workflows/wbplay.yml': WORKFLOW,
};

export const registerInit: RegisterCommand = (program, setExitCode) => {
  program
    .command('init')
    .description(
      'start a wbplay project: a playbook with its schema line, wbplay.config.yaml, a .gitignore for outputs and a CI workflow; never overwrites a file',
    )
    .argument('[dir]', 'the project folder', '.')
    .action(async (dir: string) => {
      const root = resolve(dir);
      const taken = Object.keys(STARTER_FILES).filter((file) => existsSync(join(root, file)));
      if (taken.length > 0) {
        // All or nothing: a half-written starter would be harder to sort out than none.
        return setExitCode(
          fail(
            'BAD_OPTION',
            `init writes no file, since ${taken.map((f) => shown(root, f)).join(', ')} ${taken.length === 1 ? 'exists' : 'exist'} already`,
            'move or rename them, or run init in another folder',
          ),
        );
      }
      try {
        for (const [file, text] of Object.entries(STARTER_FILES)) {
          const path = join(root, file);
          await mkdir(dirname(path), { recursive: true });
          // `wx`: a file that appeared meanwhile is still not overwritten.
          await writeFile(path, text, { flag: 'wx' });
          console.log(`wrote ${shown(root, file)}`);
        }
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        return setExitCode(
          fail(
            'WRITE_FAILED',
            `cannot write ${e.path ?? root}${e.code ? ` (${e.code})` : ''}`,
            'check that the folder is writable',
            EXIT.failed,
          ),
        );
      }
      console.log(
        'next: npx wbplay demo-data wbplay-out/demo && npx wbplay run playbooks (the first run writes the goldens; commit them)',
      );
      setExitCode(EXIT.ok);
    });
};

function shown(root: string, file: string): string {
  const rel = relative(process.cwd(), join(root, file));
  return rel.startsWith('..') ? join(root, file) : rel;
}
