// The public API is a decision: these lists are the whole surface of `import ... from 'wbplay'`,
// so adding or removing a name is a visible change of this file in review.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const INDEX = fileURLToPath(new URL('../src/index.ts', import.meta.url));

const VALUES = [
  'COLORMAPS',
  'CompareError',
  'DEFAULT_RETRY',
  'LEVEL_WINDOW_PRESETS',
  'PLAN_VERSION',
  'PlaybookError',
  'RESULT_VERSION',
  'ReportError',
  'VERSION',
  'WorkbenchApiError',
  'WorkbenchClient',
  'WorkbenchError',
  'WorkbenchLaunchError',
  'WorkbenchNetworkError',
  'WorkbenchProtocolError',
  'WorkbenchUnreachableError',
  'WorkbenchUsageError',
  'compareImages',
  'compilePlaybook',
  'connect',
  'createReporters',
  'discover',
  'embeddedWorkbenches',
  'float',
  'formatPlan',
  'launchWorkbench',
  'launchedWorkbenches',
  'loadPlaybook',
  'readProvenance',
  'renderDiagnostics',
  'runPlans',
  'startReferenceWorkbench',
];

/** Names that exist for TypeScript only (`export type`). */
const TYPES = [
  'AreaResult',
  'Artefact',
  'Attempt',
  'CallOptions',
  'Camera',
  'CameraPatch',
  'CaseInfo',
  'CaseList',
  'CaseResult',
  'CaseSummary',
  'Colormap',
  'CompareErrorCode',
  'CompareOptions',
  'Comparison',
  'ComparisonKind',
  'CompileOptions',
  'CompileResult',
  'ConnectOptions',
  'Diagnostic',
  'DiagnosticCode',
  'Display',
  'ErrorInfo',
  'ExchangeEvent',
  'FigureProvenance',
  'ImageAssertion',
  'ImageInput',
  'InterpolationSettings',
  'LaunchOptions',
  'LaunchedWorkbench',
  'LayoutDocument',
  'LevelAndWindow',
  'LevelWindow',
  'LevelWindowPreset',
  'NodeInfo',
  'OutlineSettings',
  'OutputStream',
  'Plan',
  'PlanCase',
  'PlanSpan',
  'PlanStep',
  'PlanWorkbench',
  'PropertyWriteResult',
  'Provenance',
  'Rect',
  'ReferenceWorkbenchHandle',
  'ReferenceWorkbenchOptions',
  'RegionOptions',
  'RegionResult',
  'ReportErrorCode',
  'Reporter',
  'ReporterFailure',
  'ReporterFanout',
  'ReporterName',
  'ReporterSetup',
  'RetryPolicy',
  'RgbaImage',
  'RunHead',
  'RunOptions',
  'RunResult',
  'RunResultTree',
  'RunStartInfo',
  'Screenshot',
  'ServerInfo',
  'Shard',
  'Size',
  'SourceSpan',
  'Span',
  'StartedWorkbench',
  'Status',
  'StepInfo',
  'StepResult',
  'Summary',
  'Tolerance',
  'UpdateMode',
  'WorkbenchFactory',
  'WorkbenchSource',
  'WorkbenchUrls',
];

/** Every name the package root exports, values and types, as the TypeScript compiler sees it. */
function compiledExportNames(): string[] {
  const program = ts.createProgram([INDEX], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(INDEX);
  const module = source && checker.getSymbolAtLocation(source);
  assert.ok(module, 'src/index.ts is a module');
  return checker.getExportsOfModule(module).map((s) => s.name);
}

test('the package root exports exactly these values', async () => {
  const api = (await import('../src/index.js')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(api).sort(), VALUES);
  for (const name of VALUES) assert.notEqual(api[name], undefined, name);
});

test('the package root exports exactly these types', async () => {
  const values = new Set(Object.keys(await import('../src/index.js')));
  const typeOnly = compiledExportNames().filter((name) => !values.has(name));
  assert.deepEqual(typeOnly.sort(), TYPES);
});

test('what the README and docs/ show imported from wbplay is exported', () => {
  const docs = fileURLToPath(new URL('../docs/', import.meta.url));
  const readme = [
    readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8'),
    ...readdirSync(docs)
      .filter((f) => f.endsWith('.md'))
      .map((f) => readFileSync(join(docs, f), 'utf8')),
  ].join('\n');
  const imported = [...readme.matchAll(/import \{([^}]*)\} from 'wbplay'/g)].flatMap((m) =>
    (m[1] ?? '').split(',').map((n) => n.trim().replace(/^type /, '')),
  );
  const mentioned = [
    ...readme.matchAll(/`(?:const \w+ = await )?(\w+)\([^`]*\)` \((?:also )?exported by `wbplay`\)/g),
  ].map((m) => m[1] ?? '');
  assert.ok(imported.length > 0 && mentioned.length > 0, 'the docs show the API');
  for (const name of [...imported, ...mentioned])
    assert.ok(VALUES.includes(name) || TYPES.includes(name), `${name} is not exported`);
});
