import { resolve } from 'node:path';
import type { Span } from '../diagnostics/diagnostic.js';
import { suggestion } from '../diagnostics/did-you-mean.js';
import { translateErrors } from '../playbook/schema-errors.js';
import { entry, type YNode } from '../playbook/tree.js';
import { validators } from './validators.generated.js';
import type { IncludeArgs } from '../steps/include.js';
import { POST_RUN_KEYS } from '../steps/post-run/stages.js';
import { isStepKind, registry } from '../steps/registry.js';
import { STEP_KINDS, type StepDefinition, type StepKind } from '../steps/step-definition.js';
import { BROKEN, expandNode, type Scope, type VarValue } from './interpolate.js';
import { defaultsOf } from './defaults.js';
import type { PlanSpan, PlanStep } from './plan.js';
import { stepSchema } from './schemas.js';
import { DEF_MESSAGES, type LoadedFile, type Session } from './session.js';
import { StepContext, type CaseState } from './step-context.js';
import { captureWarning } from './warnings.js';

/** Where the steps being compiled come from: a file, its scope and the includes that led to it. */
export interface Frame {
  file: LoadedFile;
  scope: Scope;
  defaults: Readonly<Record<string, Record<string, unknown>>>;
  /** Absolute paths of the files being included, outermost first, to catch cycles. */
  stack: readonly string[];
  via: readonly PlanSpan[];
}

/** Compiles the steps of one file into the case, inlining includes. */
export function compileSteps(session: Session, frame: Frame, state: CaseState, out: PlanStep[]): void {
  for (const item of frame.file.steps?.items ?? []) compileStep(session, frame, state, item, out);
}

function compileStep(session: Session, frame: Frame, state: CaseState, item: YNode, out: PlanStep[]): void {
  const source = frame.file.source;
  let kindWord: string;
  let keyStart: number;
  let keyEnd: number;
  let value: YNode | undefined;
  if (item.type === 'scalar' && typeof item.value === 'string') {
    kindWord = item.value;
    keyStart = item.start;
    keyEnd = item.end;
  } else if (item.type === 'map' && item.entries.length === 1 && item.entries[0]) {
    const e = item.entries[0];
    kindWord = e.key;
    keyStart = e.keyRange.start;
    keyEnd = e.keyRange.end;
    value = e.value;
  } else {
    reportShape(session, frame, item);
    return;
  }
  if (!isStepKind(kindWord)) {
    session.error(
      'UNKNOWN_STEP',
      `unknown step kind \`${kindWord}\``,
      suggestion(kindWord, STEP_KINDS, `the step kinds are ${STEP_KINDS.join(', ')}`),
      source.span(keyStart, keyEnd),
    );
    return;
  }
  // Computed only when a message needs it: most steps have none.
  const kindSpan = (): Span => source.span(keyStart, keyEnd);
  const kind: StepKind = kindWord;
  const def = registry[kind] as StepDefinition<StepKind, unknown>;
  if (!value && !def.bare) {
    session.error('MISSING_FIELD', `step \`${kind}\` needs its fields`, `write it as \`- ${kind}: { … }\``, kindSpan());
    return;
  }

  let broken = false;
  const raw = value
    ? expandNode(value, frame.scope, (at, p) => {
        broken = true;
        if (!p.silent) session.error(p.code, p.message, p.hint, session.templateSpan(source, at, p));
      })
    : null;
  if (broken) return;

  const validate = validators[`step_${kind}`];
  if (!validate(raw)) {
    // Without the studies, `${study.x}` stands in for a value of unknown type: no type error then.
    const unknownStudy = frame.scope.study !== undefined && frame.scope.study.fields === undefined;
    const problems = translateErrors(validate.errors ?? [], stepSchema(kind), raw, DEF_MESSAGES, `\`${kind}\``).filter(
      (p) => !(unknownStudy && holdsPlaceholder(valueAt(raw, p.path))),
    );
    for (const p of problems) {
      const span =
        !value || (p.path.length === 0 && p.code === 'MISSING_FIELD')
          ? kindSpan()
          : session.spanAt(source, value, p.path, p.onKey);
      session.error(p.code, p.message, p.hint, span);
    }
    if (problems.length > 0) {
      defineNamesOf(kind, raw, state);
      return;
    }
  }

  const ctx = new StepContext(
    session,
    frame.file,
    value,
    kindSpan,
    frame.defaults[kind] ?? {},
    state,
    frame.scope.study,
  );
  const args = def.compile(raw, ctx);
  if (ctx.failed) return;
  const start = source.position(keyStart);
  const span: PlanSpan = { file: source.display, line: start.line, col: start.col };
  if (kind === 'include') {
    inline(session, frame, state, args as IncludeArgs, span, value, out);
    return;
  }
  const warning = captureWarning(state, kind, args, kindSpan);
  if (warning) session.warnings.push(warning);
  if (session.options.checkOnly) return;
  out.push({
    index: out.length + 1,
    kind,
    description: def.describe(args),
    span,
    ...(frame.via.length > 0 ? { via: [...frame.via] } : {}),
    args,
  } as PlanStep);
}

/** The fields by which each kind names a node later steps may use. */
const NAMING_FIELDS: Partial<Record<StepKind, { alias?: string; name?: string }>> = {
  load: { alias: 'as', name: 'name' },
  set: { name: 'name' },
};

/**
 * A step with a wrong field still names its node: later steps that use the name would
 * otherwise get an error for a mistake they did not make.
 */
function defineNamesOf(kind: StepKind, raw: unknown, state: CaseState): void {
  const fields = NAMING_FIELDS[kind];
  if (!fields || raw === null || typeof raw !== 'object' || Array.isArray(raw)) return;
  const r = raw as Record<string, unknown>;
  const alias = fields.alias !== undefined ? r[fields.alias] : undefined;
  const name = fields.name !== undefined ? r[fields.name] : undefined;
  if (typeof alias === 'string') state.aliases.add(alias);
  if (typeof name === 'string') state.names.add(name);
}

/** A step that is not a one-key map: say what it looks like it meant. */
function reportShape(session: Session, frame: Frame, item: YNode): void {
  const source = frame.file.source;
  if (item.type === 'map' && item.entries.length > 1) {
    const [first, second] = item.entries;
    if (first && second) {
      const kind = isStepKind(first.key) ? first.key : undefined;
      session.error(
        'STEP_SHAPE',
        `a step has one key, its kind; \`${second.key}\` is a second key`,
        kind
          ? `indent \`${second.key}:\` under \`${kind}:\`, or start a new step with \`- \``
          : 'start each step with `- ` on its own line',
        source.span(second.keyRange.start, second.keyRange.end),
      );
      return;
    }
  }
  session.error(
    'STEP_SHAPE',
    'a step must be a one-key map such as `- load: { file: ct.nrrd }`',
    'write the step kind, a colon, then its fields',
    session.spanAt(source, item, [], false),
  );
}

function inline(
  session: Session,
  frame: Frame,
  state: CaseState,
  args: IncludeArgs,
  span: PlanSpan,
  value: YNode | undefined,
  out: PlanStep[],
): void {
  const at = value ? session.spanAt(frame.file.source, value, ['file'], false) : undefined;
  if (frame.stack.includes(args.file)) {
    const chain = [...frame.stack.slice(frame.stack.indexOf(args.file)), args.file]
      .map((p) => p.split('/').pop())
      .join(' -> ');
    session.error(
      'INCLUDE_CYCLE',
      `include cycle: ${chain}`,
      'a playbook cannot include itself, directly or through others',
      at,
    );
    return;
  }
  const file = session.load(args.file);
  if (!file) {
    if (!session.options.checkFiles)
      session.error(
        'FILE_NOT_FOUND',
        `cannot read the included playbook \`${args.file.split('/').pop()}\``,
        'an include is needed to compile the plan, even without --check-files',
        at,
      );
    return;
  }
  if (!file.root) return;
  for (const key of ['foreach', 'workbench', ...POST_RUN_KEYS]) {
    const e = entry(file.root, key);
    if (e)
      session.error(
        'INCLUDE_SHAPE',
        `an included playbook cannot have \`${key}\``,
        `${key} belongs to the playbook that is run; move it there`,
        file.source.span(e.keyRange.start, e.keyRange.end),
      );
  }
  const vars = new Map<string, VarValue | typeof BROKEN>();
  const own = entry(file.root, 'vars')?.value;
  const scopeOf = (): Scope => ({
    vars,
    env: frame.scope.env,
    ...(frame.scope.study ? { study: frame.scope.study } : {}),
  });
  if (own?.type === 'map') {
    for (const e of own.entries) {
      if (Object.prototype.hasOwnProperty.call(args.vars, e.key)) continue;
      let broken = false;
      const v = expandNode(e.value, scopeOf(), (s, p) => {
        broken = true;
        if (!p.silent) session.error(p.code, p.message, p.hint, session.templateSpan(file.source, s, p));
      });
      if (broken) vars.set(e.key, BROKEN);
      else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') vars.set(e.key, v);
    }
  }
  for (const [k, v] of Object.entries(args.vars)) vars.set(k, v);
  const ownDefaults = defaultsOf(entry(file.root, 'defaults')?.value, scopeOf(), () => undefined);
  const defaults: Record<string, Record<string, unknown>> = { ...frame.defaults };
  for (const [k, v] of Object.entries(ownDefaults)) defaults[k] = { ...(frame.defaults[k] ?? {}), ...v };
  compileSteps(
    session,
    { file, scope: scopeOf(), defaults, stack: [...frame.stack, resolve(args.file)], via: [...frame.via, span] },
    state,
    out,
  );
}

const PLACEHOLDER = /^<[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z0-9_-]+>$/;

function holdsPlaceholder(v: unknown): boolean {
  if (typeof v === 'string') return PLACEHOLDER.test(v);
  if (Array.isArray(v)) return v.some(holdsPlaceholder);
  if (v !== null && typeof v === 'object') return Object.values(v).some(holdsPlaceholder);
  return false;
}

function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let v = data;
  for (const s of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[s] : undefined;
  return v;
}
