import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { goldenPath } from '../../src/compare/golden-template.js';

test("a golden template fills every placeholder, relative to the configuration's folder", () => {
  const path = goldenPath(
    { pattern: 'goldens/{project}/{engine_version}/{platform}/{playbook}/{name}', base: '/repo', project: 'mitk-2024' },
    {
      playbook: '/repo/playbooks/figure.yaml',
      golden: '/repo/playbooks/goldens/axial.png',
      engineVersion: '2024.12.00',
    },
  );
  assert.equal(path, join('/repo', 'goldens', 'mitk-2024', '2024.12.00', process.platform, 'figure', 'axial.png'));
});

test("a value a workbench reports cannot leave the template's folder", () => {
  const path = goldenPath(
    { pattern: 'g/{engine_version}/{name}.png', base: '/repo', project: 'p' },
    { playbook: 'f.yaml', golden: 'a.png', engineVersion: '../../etc' },
  );
  assert.equal(path, join('/repo', 'g', '.._.._etc', 'a.png'));
  assert.equal(
    goldenPath(
      { pattern: 'g/{engine_version}/{name}.png', base: '/repo', project: 'p' },
      { playbook: 'f.yaml', golden: 'a.png', engineVersion: '..' },
    ),
    join('/repo', 'g', '_', 'a.png'),
  );
});
