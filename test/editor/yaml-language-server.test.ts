// What an editor shows for playbooks and wbplay.config.yaml, asked of the real yaml-language-server
// over its stdio protocol: completion offers every step kind by name with its summary, hover
// explains a step and a field, and a misspelt key is flagged where it is written.
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { STEP_KINDS } from '../../src/steps/step-definition.js';
import { registry } from '../../src/steps/registry.js';
import { LspClient } from '../helpers/lsp.js';

const schemaLine = (name: string): string =>
  `# yaml-language-server: $schema=${pathToFileURL(fileURLToPath(new URL(`../../schemas/${name}`, import.meta.url))).href}\n`;

interface Diagnostic {
  range: { start: { line: number; character: number } };
  message: string;
}
interface CompletionItem {
  label: string;
  documentation?: string | { value: string };
}
interface Hover {
  contents: { value: string };
}

let lsp: LspClient;
let version = 0;

before(async () => {
  lsp = new LspClient();
  lsp.settings = { validate: true, hover: true, completion: true, schemaStore: { enable: false } };
  await lsp.request('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: {
      textDocument: {
        completion: { completionItem: { documentationFormat: ['plaintext'] } },
        hover: { contentFormat: ['plaintext'] },
      },
      workspace: { configuration: true },
    },
  });
  lsp.notify('initialized', {});
  lsp.notify('workspace/didChangeConfiguration', { settings: { yaml: lsp.settings } });
});

after(() => lsp.stop());

/** Opens a document and returns its first diagnostics that `accept`s. */
async function open(
  name: string,
  text: string,
  accept: (d: Diagnostic[]) => boolean,
): Promise<{ uri: string; diagnostics: Diagnostic[] }> {
  const uri = `file:///wbplay-editor-test/${++version}/${name}`;
  const published = lsp.waitFor<{ uri: string; diagnostics: Diagnostic[] }>(
    'textDocument/publishDiagnostics',
    (p) => p.uri === uri && accept(p.diagnostics),
  );
  lsp.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version, text } });
  return { uri, diagnostics: (await published).diagnostics };
}

const docOf = (item: CompletionItem): string =>
  typeof item.documentation === 'string' ? item.documentation : (item.documentation?.value ?? '');

test('a step list completes every step kind by name, each with its summary', async () => {
  const { uri } = await open(
    'figure.yaml',
    `${schemaLine('playbook.schema.json')}version: 1\nsteps:\n  - \n`,
    () => true,
  );
  const result = await lsp.request<CompletionItem[] | { items: CompletionItem[] }>('textDocument/completion', {
    textDocument: { uri },
    position: { line: 3, character: 4 },
  });
  const items = Array.isArray(result) ? result : result.items;
  const labels = new Set(items.map((i) => i.label));
  for (const kind of STEP_KINDS) assert.ok(labels.has(kind), `completion offers ${kind}`);
  const unnamed = items.filter((i) => /^object\(/.test(i.label) || docOf(i) === '');
  assert.deepEqual(
    unnamed.map((i) => i.label),
    [],
    'no item is a bare object or without documentation',
  );
  for (const kind of STEP_KINDS)
    assert.ok(
      items.some((i) => i.label === kind && docOf(i).includes(registry[kind].summary)),
      `${kind} shows its summary`,
    );
});

test('hover explains a step kind and a field; a misspelt step kind is flagged at its key', async () => {
  const text = `${schemaLine('playbook.schema.json')}version: 1\nsteps:\n  - screenshot: { of: stdmulti/axial, save: a.png }\n  - screnshot: { of: stdmulti/axial }\n`;
  const { uri, diagnostics } = await open('typo.yaml', text, (d) => d.length > 0);
  const typo = diagnostics.find((d) => d.message.includes('screnshot'));
  assert.ok(typo, diagnostics.map((d) => d.message).join('\n'));
  assert.deepEqual(typo.range.start, { line: 4, character: 4 });
  const kind = await lsp.request<Hover>('textDocument/hover', {
    textDocument: { uri },
    position: { line: 3, character: 6 },
  });
  assert.match(kind.contents.value, /screenshot/);
  assert.ok(kind.contents.value.includes(registry.screenshot.summary));
  const field = await lsp.request<Hover>('textDocument/hover', {
    textDocument: { uri },
    position: { line: 3, character: 19 },
  });
  assert.match(field.contents.value, /A window address/);
});

test('wbplay.config.yaml completes, explains and checks its settings', async () => {
  const text = `${schemaLine('config.schema.json')}workers: 2\nwokers: 3\n`;
  const { uri, diagnostics } = await open('wbplay.config.yaml', text, (d) => d.length > 0);
  const typo = diagnostics.find((d) => d.message.includes('wokers'));
  assert.ok(typo, diagnostics.map((d) => d.message).join('\n'));
  assert.deepEqual(typo.range.start, { line: 2, character: 0 });
  const hover = await lsp.request<Hover>('textDocument/hover', {
    textDocument: { uri },
    position: { line: 1, character: 2 },
  });
  assert.match(hover.contents.value, /Cases run at once/);
  const { uri: blank } = await open('wbplay.config.yaml', `${schemaLine('config.schema.json')}\n`, () => true);
  const result = await lsp.request<CompletionItem[] | { items: CompletionItem[] }>('textDocument/completion', {
    textDocument: { uri: blank },
    position: { line: 1, character: 0 },
  });
  const items = Array.isArray(result) ? result : result.items;
  for (const key of [
    'url',
    'token_env',
    'workers',
    'reporters',
    'out',
    'retries',
    'timeout',
    'update_goldens',
    'goldens',
    'projects',
  ]) {
    const item = items.find((i) => i.label === key);
    assert.ok(item && docOf(item) !== '', `${key} is completed with its description`);
  }
});
