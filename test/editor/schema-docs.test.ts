// Every step kind and every property of the published schemas has a title and a description,
// which is what editors show in completion lists and on hover.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

function undocumented(schema: unknown): string[] {
  const missing: string[] = [];
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}/${i}`));
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      // `if` only tests a value; an editor never offers what it names.
      if (key === 'if' || key === 'enum' || key === 'const') continue;
      if (key === 'properties' && value !== null && typeof value === 'object') {
        for (const [name, prop] of Object.entries(value)) {
          if (prop === false) continue;
          const p = prop as { title?: unknown; description?: unknown };
          if (typeof p.title !== 'string' || typeof p.description !== 'string' || p.description === '')
            missing.push(`${path}/properties/${name}`);
          // Each entry is a schema, whatever its name (a field may be called `properties`).
          walk(prop, `${path}/properties/${name}`);
        }
        continue;
      }
      walk(value, `${path}/${key}`);
    }
  };
  walk(schema, '#');
  return missing;
}

for (const name of ['playbook.schema.json', 'config.schema.json']) {
  test(`every property of schemas/${name} has a title and a description`, () => {
    const schema = JSON.parse(readFileSync(new URL(`../../schemas/${name}`, import.meta.url), 'utf8')) as unknown;
    assert.deepEqual(undocumented(schema), []);
  });
}

test('every step kind of the playbook schema is an alternative with a title and a description', () => {
  const schema = JSON.parse(readFileSync(new URL('../../schemas/playbook.schema.json', import.meta.url), 'utf8')) as {
    properties: { steps: { items: { anyOf: { title?: string; description?: string }[] } } };
  };
  for (const alternative of schema.properties.steps.items.anyOf) {
    assert.ok(alternative.title && alternative.description, JSON.stringify(alternative).slice(0, 80));
  }
});
