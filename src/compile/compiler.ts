import { resolve } from 'node:path';
import {
  dedupeDiagnostics,
  PlaybookError,
  sortDiagnostics,
  type Diagnostic,
  type Span,
} from '../diagnostics/diagnostic.js';
import { entry, type YNode } from '../playbook/tree.js';
import { compileSteps } from './case-compiler.js';
import {
  resolveForeach,
  stem,
  textValue,
  type Foreach,
  type ForeachContext,
  type ForeachRaw,
  type Study,
} from './foreach.js';
import type { ArchiveResults, ArchiveSearch } from './foreach-dicomweb.js';
import { caseOnDemand, type CaseBody } from './cohort-cases.js';
import type { StageCase } from '../steps/post-run/post-run-stage.js';
import { BROKEN, expandNode, fromWorkingDir, type Scope, type VarValue } from './interpolate.js';
import { defaultsOf } from './defaults.js';
import { fieldsRead, keepFieldsRead } from './foreach-dicom.js';
import { compilePostRun } from './post-run-context.js';
import { PLAN_VERSION, type Plan, type PlanCase, type PlanStep, type PlanWorkbench } from './plan.js';
import { Session, type LoadedFile } from './session.js';
import type { CaseState } from './step-context.js';

export interface CompileOptions {
  /** `--var name=value`: override (or add to) the playbook's `vars`. */
  vars?: Readonly<Record<string, string>>;
  /** Variables for a playbook that does not set them, e.g. `out` (the output folder). */
  defaultVars?: Readonly<Record<string, string>>;
  /** Whether input files must exist now (default true). */
  checkFiles?: boolean;
  /** The environment `${env.NAME}` reads (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Paths in messages and spans are shown relative to this folder (default: the working directory). */
  displayRoot?: string;
  /** Find every problem but return no plan (default false). */
  checkOnly?: boolean;
  /** Archive searches already made, for a `foreach: dicomweb`; without them the compile asks for them. */
  archives?: ArchiveResults;
}

export interface CompileResult {
  /** Present when there is no diagnostic (and `checkOnly` was not asked). */
  plan?: Plan;
  diagnostics: Diagnostic[];
  /** What the playbook may get wrong without an error (only when there is no error). */
  warnings: Diagnostic[];
  /** The text of every file read, by shown path, for rendering diagnostics. */
  sources: Map<string, string>;
  /**
   * Archive searches the playbook needs before it can have a plan (`foreach: dicomweb`): make
   * them and compile again with their answers in `archives`.
   */
  searches?: ArchiveSearch[];
}

/** Compiles a playbook file into its plan, or says everything that is wrong with it. */
export function compilePlaybook(path: string, options: CompileOptions = {}): CompileResult {
  const checkOnly = options.checkOnly ?? false;
  const session = new Session({
    checkFiles: options.checkFiles ?? true,
    env: options.env ?? process.env,
    displayRoot: options.displayRoot ?? process.cwd(),
    checkOnly,
  });
  const searches: ArchiveSearch[] = [];
  const plan = compileRoot(session, resolve(path), path, options.vars ?? {}, options.defaultVars ?? {}, {
    ...(options.archives ? { archives: options.archives } : {}),
    needSearch: (search) => searches.push(search),
  });
  const diagnostics = sortDiagnostics(dedupeDiagnostics(session.diagnostics));
  return {
    ...(plan && diagnostics.length === 0 && !checkOnly && searches.length === 0 ? { plan } : {}),
    diagnostics,
    warnings: diagnostics.length === 0 ? sortDiagnostics(dedupeDiagnostics(session.warnings)) : [],
    sources: session.sources(),
    ...(searches.length > 0 ? { searches } : {}),
  };
}

/** The plan of a playbook; throws a PlaybookError carrying every diagnostic when it is invalid. */
export function loadPlaybook(path: string, options: CompileOptions = {}): Plan {
  const result = compilePlaybook(path, options);
  if (!result.plan) throw new PlaybookError(result.diagnostics);
  return result.plan;
}

function compileRoot(
  session: Session,
  abs: string,
  shown: string,
  cliVars: Readonly<Record<string, string>>,
  defaultVars: Readonly<Record<string, string>>,
  archive: Pick<ForeachContext, 'archives' | 'needSearch'>,
): Plan | undefined {
  const file = session.load(abs);
  if (!file) {
    session.error(
      'READ_ERROR',
      `cannot read the playbook \`${shown}\``,
      'check that the file exists and is readable',
      undefined,
    );
    return undefined;
  }
  const root = file.root;
  if (!root) return undefined;
  const env = session.options.env;
  const at = (node: YNode, path: (string | number)[]): Span => session.spanAt(file.source, node, path, false);
  const onTemplate = (
    node: Parameters<Parameters<typeof expandNode>[2]>[0],
    p: Parameters<Parameters<typeof expandNode>[2]>[1],
  ): void => {
    if (!p.silent) session.error(p.code, p.message, p.hint, session.templateSpan(file.source, node, p));
  };

  // Variables, in order: a later one may use an earlier one; the command line wins.
  const vars = new Map<string, VarValue | typeof BROKEN>();
  const shell = new Set(Object.keys(cliVars));
  const scope: Scope = { vars, env, shell };
  const varsNode = entry(root, 'vars')?.value;
  if (varsNode?.type === 'map') {
    for (const e of varsNode.entries) {
      let broken = false;
      const cli = cliVars[e.key];
      const v =
        cli !== undefined
          ? textValue(fromWorkingDir(cli))
          : expandNode(e.value, scope, (n, p) => ((broken = true), onTemplate(n, p)));
      if (broken) vars.set(e.key, BROKEN);
      else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') vars.set(e.key, v);
    }
  }
  for (const [k, v] of Object.entries(cliVars)) if (!vars.has(k)) vars.set(k, textValue(fromWorkingDir(v)));
  for (const [k, v] of Object.entries(defaultVars)) if (!vars.has(k)) vars.set(k, textValue(v));

  const workbench = compileWorkbench(session, file, scope);
  const defaults = defaultsOf(entry(root, 'defaults')?.value, scope, onTemplate);

  let foreach: Foreach | undefined;
  const foreachNode = entry(root, 'foreach')?.value;
  if (foreachNode?.type === 'map') {
    let broken = false;
    const raw = expandNode(foreachNode, scope, (n, p) => ((broken = true), onTemplate(n, p))) as ForeachRaw;
    if (broken) return undefined;
    foreach = resolveForeach(raw, {
      dir: file.dir,
      checkFiles: session.options.checkFiles,
      error: (code, path, message, hint) => session.error(code, message, hint, at(foreachNode, path)),
      fileError: (code, where, message, hint) => session.fileError(code, where, message, hint),
      ...archive,
    });
    if (!foreach) return undefined;
  }

  const studies = foreach ? (foreach.studies ?? [undefined]) : [undefined];
  const scopeOf = (study: Study | undefined): Scope =>
    foreach ? { vars, env, shell, study: { as: foreach.as, fields: study?.fields } } : scope;
  const nameOf = (study: Study | undefined): string => study?.name ?? (foreach ? `<${foreach.as}.name>` : 'main');
  const compileCase = (on: Session, study: Study | undefined): { state: CaseState; steps: PlanStep[] } => {
    const state: CaseState = {
      aliases: new Set(),
      names: new Set(),
      layoutCells: undefined,
      inputs: new Set(),
      outputs: new Map(),
      ...(study?.retrieve ? { retrieved: study.retrieve.map((r) => r.dir) } : {}),
    };
    const steps: PlanStep[] = [];
    compileSteps(on, { file, scope: scopeOf(study), defaults, stack: [abs], via: [] }, state, steps);
    return { state, steps };
  };
  // A cohort's studies are checked here, every problem of every study said up front, but their
  // steps are not kept: each case is compiled again when it runs (`caseOnDemand`).
  const onDemand = studies.length > 1 && !session.options.checkOnly;
  const check = onDemand ? session.fork({ checkOnly: true }, 'shared') : session;
  const cases: PlanCase[] = [];
  const stageCases: StageCase[] = [];
  const writers = new Map<string, string>();
  const reported = new Set<string>();
  for (const study of studies) {
    const { state, steps } = compileCase(check, study);
    const name = nameOf(study);
    if (study) {
      for (const [out, span] of state.outputs) {
        const other = writers.get(out);
        if (other === undefined) writers.set(out, name);
        else if (other !== name && !reported.has(out)) {
          // One error per file: a path without ${study.name} would otherwise give one per study.
          reported.add(out);
          session.error(
            'OUTPUT_COLLISION',
            `studies \`${other}\` and \`${name}\` both write \`${out.split('/').pop()}\` to the same file`,
            `put \${${foreach?.as ?? 'study'}.name} in the output path`,
            span(),
          );
        }
      }
    }
    if (onDemand) {
      stageCases.push({
        id: name,
        name,
        ...(study ? { study: study.fields } : {}),
        outputs: [...state.outputs.keys()],
      });
      continue;
    }
    cases.push({
      id: name,
      name,
      ...(study ? { study: study.fields } : {}),
      inputs: caseInputs(state.inputs, study),
      outputs: [...state.outputs.keys()],
      ...(study?.retrieve ? { retrieve: study.retrieve } : {}),
      steps,
    });
  }
  if (onDemand) {
    // Files a study's case reads beyond those its steps name (a DICOM series' other files).
    const byName = new Map(studies.flatMap((s) => (s ? [[nameOf(s), s] as const] : [])));
    // One compile for every case of the plan: a case holds no function of its own.
    const compileOne = (c: PlanCase): CaseBody => {
      // Problems of its own: the plan's were all found above.
      const on = session.fork({}, 'own');
      // The study as found, every field: the plan keeps only the fields the playbook reads.
      const { state, steps } = compileCase(on, byName.get(c.name) ?? { name: c.name, fields: c.study ?? {} });
      if (on.diagnostics.length > 0) throw new PlaybookError(sortDiagnostics(dedupeDiagnostics(on.diagnostics)));
      return { inputs: caseInputs(state.inputs, byName.get(c.name)), outputs: [...state.outputs.keys()], steps };
    };
    for (const study of studies) {
      const name = nameOf(study);
      cases.push(
        caseOnDemand(
          {
            id: name,
            name,
            ...(study ? { study: study.fields } : {}),
            ...(study?.retrieve ? { retrieve: study.retrieve } : {}),
          },
          compileOne,
        ),
      );
    }
  }

  const postRun = compilePostRun(session, file, scope, foreach, onDemand ? stageCases : cases);
  if (foreach?.source === 'dicom' || foreach?.source === 'dicomweb')
    keepFieldsRead(cases, fieldsRead(session.loaded(), foreach.as));
  // A check builds no plan (and so reads no file's hash).
  if (session.options.checkOnly) return undefined;
  const top = file.top;
  return {
    version: PLAN_VERSION,
    playbook: { path: file.source.path, sha256: file.sha256 },
    sources: session.loaded().map((f) => ({ path: f.source.path, sha256: f.sha256 })),
    name: typeof top.name === 'string' ? top.name : stem(abs),
    tags: Array.isArray(top.tags) ? top.tags.map(String) : [],
    workbench,
    vars: Object.fromEntries([...vars].filter((e): e is [string, VarValue] => e[1] !== BROKEN)),
    ...(foreach
      ? {
          foreach: {
            as: foreach.as,
            source: foreach.source,
            ...(foreach.from ? { from: foreach.from } : {}),
            ...(foreach.per ? { per: foreach.per } : {}),
            count: foreach.studies?.length ?? 0,
          },
        }
      : {}),
    cases,
    ...postRun,
  };
}

/**
 * The files a case's result depends on: those its steps read and its study's own. A series
 * retrieved from an archive is not among them: it is known by its UIDs and instance count
 * (the case's `retrieve`), and its cache folder may be emptied or not yet filled when the
 * hashes are taken.
 */
function caseInputs(read: Iterable<string>, study: Study | undefined): string[] {
  const all = [...new Set([...read, ...(study?.inputs ?? [])])];
  const cached = study?.retrieve?.map((r) => r.dir);
  if (!cached) return all;
  return all.filter((p) => !cached.some((dir) => p === dir || p.startsWith(`${dir}/`) || dir.startsWith(`${p}/`)));
}

const TOKEN_FROM_ENV = /^\$\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\s*\}$/;

/**
 * The workbench target. A URL from an unset environment variable is no error: without a URL
 * the run uses the embedded workbench. A token is never kept, only where it comes from.
 */
function compileWorkbench(session: Session, file: LoadedFile, scope: Scope): PlanWorkbench {
  const node = file.root ? entry(file.root, 'workbench')?.value : undefined;
  if (node?.type !== 'map') return {};
  const out: PlanWorkbench = {};
  const url = entry(node, 'url')?.value;
  if (url?.type === 'scalar' && typeof url.value === 'string') {
    let unset = false;
    const value = expandNode(url, scope, (s, p) => {
      if (p.code === 'UNSET_ENV') unset = true;
      else session.error(p.code, p.message, p.hint, session.templateSpan(file.source, s, p));
    });
    if (!unset && typeof value === 'string' && value !== '') out.url = value;
  }
  const token = entry(node, 'token')?.value;
  if (token?.type === 'scalar' && typeof token.value === 'string' && token.value !== '') {
    const m = TOKEN_FROM_ENV.exec(token.value);
    out.token = m?.[1] ? { env: m[1] } : { redacted: true };
  }
  return out;
}
