import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ErrorObject } from 'ajv';
import { packageFile } from '../package-files.js';
import { sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { suggestion } from '../diagnostics/did-you-mean.js';
import { renderDiagnostics } from '../diagnostics/render.js';
import { parseWithYaml } from '../playbook/parse.js';
import { translateErrors } from '../playbook/schema-errors.js';
import { SourceFile, displayPath } from '../playbook/source.js';
import { spanAt } from '../playbook/span.js';
import { toPlain, type YNode } from '../playbook/tree.js';
import { useColor } from '../report/colors.js';
import { CommandError } from './errors.js';

export const CONFIG_FILE = 'wbplay.config.yaml';

/** The settings a configuration may hold, at its top level and in each project. */
export interface ConfigSettings {
  url?: string | string[];
  token_env?: string;
  workers?: number;
  reporters?: string[];
  /** Absolute: read from the configuration file's folder. */
  out?: string;
  retries?: number;
  timeout?: number;
  request_timeout?: number;
  update_goldens?: 'none' | 'missing' | 'changed' | 'all';
  foreign_nodes?: 'keep' | 'hide' | 'remove';
  goldens?: string;
  vars?: Record<string, string | number | boolean>;
  /** Absolute: read from the configuration file's folder. */
  cache?: string;
  dicomweb?: DicomwebSettings;
}

/** How cohorts come from DICOMweb archives: prefetch, and where each archive's credentials are. */
export interface DicomwebSettings {
  prefetch?: number;
  prefetch_budget_mb?: number;
  archives?: Record<string, ArchiveSettings>;
}

export interface ArchiveSettings {
  token_env?: string;
  user_env?: string;
  password_env?: string;
  allow_insecure_credentials?: boolean;
}

export interface Config {
  /** The configuration file, absolute. */
  readonly file: string;
  /** The settings of the run: the top level, with the chosen project's over them. */
  readonly settings: ConfigSettings;
  /** The project chosen with `--project`, if any. */
  readonly project?: string;
}

/** `wbplay.config.yaml` in `cwd` or the nearest folder above it. */
export function findConfig(cwd: string = process.cwd()): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const file = join(dir, CONFIG_FILE);
    if (existsSync(file)) return file;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The project root, which reports name files from: the configuration file's folder, else `cwd`. */
export function projectRoot(cwd: string = process.cwd()): string {
  const file = findConfig(cwd);
  return file !== undefined ? dirname(file) : resolve(cwd);
}

/**
 * The configuration that applies in `cwd`, checked against schemas/config.schema.json; none
 * when there is no file. A file with problems is reported like a playbook (file:line:col) and
 * ends the command as a usage error.
 */
export async function loadConfig(
  project: string | undefined,
  cwd: string = process.cwd(),
): Promise<Config | undefined> {
  const file = findConfig(cwd);
  if (file === undefined) {
    if (project !== undefined)
      throw new CommandError(
        'BAD_OPTION',
        `--project ${project}: there is no ${CONFIG_FILE} in this folder or above it`,
        `write one (wbplay init does) with \`projects: { ${project}: {...} }\``,
      );
    return undefined;
  }
  await loadValidator();
  const source = new SourceFile(file, displayPath(file, cwd), readFileSync(file, 'utf8'));
  const parsed = parseWithYaml(source);
  const diagnostics = [...parsed.diagnostics];
  const value = parsed.root ? toPlain(parsed.root) : {};
  if (diagnostics.length === 0) diagnostics.push(...schemaProblems(source, parsed.root, value));
  if (diagnostics.length > 0) {
    process.stderr.write(
      renderDiagnostics(diagnostics, {
        source: (f) => (f === source.display ? source.text : undefined),
        color: useColor(process.stderr),
      }),
    );
    throw new CommandError(
      'BAD_OPTION',
      `${source.display} has ${diagnostics.length === 1 ? 'a problem' : 'problems'}`,
      'fix it as shown above; schemas/config.schema.json describes every setting',
      2,
    );
  }
  const top = (value ?? {}) as ConfigSettings & { projects?: Record<string, ConfigSettings> };
  const { projects = {}, ...base } = top;
  let chosen: ConfigSettings = {};
  if (project !== undefined) {
    const named = projects[project];
    if (named === undefined) {
      const names = Object.keys(projects);
      throw new CommandError(
        'BAD_OPTION',
        `--project ${project}: ${source.display} has no such project${names.length ? ` (it has ${names.join(', ')})` : ''}`,
        names.length ? suggestion(project, names, `choose one of ${names.join(', ')}`) : 'add it under `projects:`',
      );
    }
    chosen = named;
  }
  const settings: ConfigSettings = {
    ...base,
    ...chosen,
    ...(base.vars || chosen.vars ? { vars: { ...base.vars, ...chosen.vars } } : {}),
  };
  // Paths written in the file are the file's, like paths written in a playbook.
  if (settings.out !== undefined) settings.out = resolve(dirname(file), settings.out);
  if (settings.cache !== undefined) settings.cache = resolve(dirname(file), settings.cache);
  return { file, settings, ...(project !== undefined ? { project } : {}) };
}

type ValidateFn = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
let compiled: { validate: ValidateFn; schema: Record<string, unknown> } | undefined;

async function loadValidator(): Promise<void> {
  if (compiled) return;
  const [{ Ajv2020 }, schemaText] = await Promise.all([
    import('ajv/dist/2020.js'),
    import('node:fs/promises').then((fs) => fs.readFile(packageFile('schemas/config.schema.json'), 'utf8')),
  ]);
  const schema = JSON.parse(schemaText) as Record<string, unknown>;
  const ajv = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true });
  compiled = { validate: ajv.compile(schema) as ValidateFn, schema };
}

function schemaProblems(source: SourceFile, root: YNode | undefined, value: unknown): Diagnostic[] {
  if (!compiled) throw new Error('the configuration validator is not loaded');
  if (compiled.validate(value ?? {})) return [];
  const problems = translateErrors(
    compiled.validate.errors ?? [],
    compiled.schema,
    value ?? {},
    {},
    'the configuration',
  ).map((p) => {
    const hint = urlHint(p.path, valueAt(value, p.path)) ?? p.hint;
    return { code: p.code, message: p.message, ...(hint ? { hint } : {}), span: spanOf(source, root, p.path, p.onKey) };
  });
  return sortDiagnostics(problems);
}

/** `localhost:8080` where a URL belongs gets the URL that was meant. */
function urlHint(path: readonly (string | number)[], value: unknown): string | undefined {
  if (!path.includes('url') || typeof value !== 'string' || /^[a-z]+:\/\//i.test(value)) return undefined;
  return `did you mean http://${value}?`;
}

function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let v = value;
  for (const key of path)
    v = v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[key] : undefined;
  return v;
}

function spanOf(
  source: SourceFile,
  root: YNode | undefined,
  path: readonly (string | number)[],
  onKey: boolean,
): Diagnostic['span'] {
  return root ? spanAt(source, root, path, onKey) : source.span(0, 0);
}

/**
 * The `--var` assignments the configuration makes for commands that compile without running
 * (`validate`, `plan`): its variables and its `out`, so they see the paths a run would use.
 */
export async function configVarArgs(project: string | undefined): Promise<string[]> {
  const config = await loadConfig(project);
  if (!config) return [];
  const { out, vars = {} } = config.settings;
  return [...Object.entries(vars).map(([k, v]) => `${k}=${String(v)}`), ...(out !== undefined ? [`out=${out}`] : [])];
}
