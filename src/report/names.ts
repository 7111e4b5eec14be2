import { isAbsolute, resolve } from 'node:path';
import { portablePath } from '../files/portable-path.js';
import type { FigureProvenance } from '../files/provenance.js';
import type {
  Artefact,
  CaseInfo,
  CaseList,
  CaseReader,
  CaseResult,
  RunResult,
  SourceSpan,
  StepInfo,
  StepResult,
} from '../result/result.js';
import type { Reporter, RunStartInfo } from '../result/reporter.js';

/**
 * Names that travel. The runner works with the machine's absolute paths; every report names
 * playbooks, goldens, source locations and the files in step arguments and study fields from the project root (the configuration file's
 * folder, else the working folder) with `/`, so the same run in two checkout folders, on two CI
 * runners or on Windows and Linux gives the same names: the identity a CI system keys a test's
 * history on. A file outside the project keeps its absolute path. Artefacts stay relative to the
 * output folder, which moves as a whole (`artefactName` names them from the root for people).
 */
export class ReportNames {
  private readonly names = new Map<string, string>();
  private readonly done = new WeakMap<object, object>();

  constructor(
    /** The project root, absolute. */
    readonly root: string,
    /** The output folder, absolute: where artefact paths start. */
    readonly outputDir: string,
    /** Where relative paths of the run (source locations) start. */
    private readonly cwd: string = process.cwd(),
  ) {}

  /** A file of the run (absolute, or relative to the working folder) as reports name it. */
  file(path: string): string {
    let name = this.names.get(path);
    if (name === undefined) {
      name = portablePath(this.root, resolve(this.cwd, path));
      this.names.set(path, name);
    }
    return name;
  }

  /** An artefact (its path relative to the output folder) named from the project root. */
  artefactName(a: Artefact): string {
    return portablePath(this.root, resolve(this.outputDir, a.path));
  }

  /** The output folder as reports name it. */
  get outputName(): string {
    return portablePath(this.root, this.outputDir);
  }

  /** The output folder as a command typed in the working folder names it. */
  get outputArg(): string {
    return portablePath(this.cwd, this.outputDir);
  }

  caseInfo<C extends CaseInfo | CaseResult>(c: C): C {
    return this.once(c, () => ({
      ...c,
      playbook: this.file(c.playbook),
      ...(c.study ? { study: this.args(c.study) as Record<string, unknown> } : {}),
      steps: c.steps.map((s: StepInfo | StepResult) => this.nameStep(s)),
    }));
  }

  step<S extends StepInfo | StepResult>(s: S): S {
    return this.once(s, () => this.nameStep(s));
  }

  /** Not remembered: a case's steps are named with the case, as they are when it ends. */
  private nameStep<S extends StepInfo | StepResult>(s: S): S {
    const named = { ...s, span: this.span(s.span) };
    if (!('artefacts' in named)) return named;
    const r = named as StepResult;
    const out: StepResult = {
      ...r,
      ...(r.image ? { image: { ...r.image, golden: this.file(r.image.golden) } } : {}),
      artefacts: r.artefacts.map((a) => this.artefact(a)),
    };
    // Named when first read: the console reporters, which see every step, never read them.
    this.lazy(out, 'args', r.args);
    if (r.resolvedArgs !== undefined) this.lazy(out, 'resolvedArgs', r.resolvedArgs);
    return out as S;
  }

  /** `target[key]` as `args(value)`, worked out on first read and kept; enumerable, so JSON holds it. */
  private lazy(target: StepResult, key: 'args' | 'resolvedArgs', value: unknown): void {
    let named: { v: unknown } | undefined;
    Object.defineProperty(target, key, {
      enumerable: true,
      configurable: true,
      get: () => (named ??= { v: this.args(value) }).v,
      set: (v: unknown) => {
        named = { v };
      },
    });
  }

  /** Step arguments or study fields with every file in them (the plan holds them absolute) named like the others. */
  private args(value: unknown): unknown {
    if (typeof value === 'string') return isAbsolute(value) ? this.file(value) : value;
    if (Array.isArray(value)) return value.map((v) => this.args(v));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.args(v);
    return out;
  }

  runStart(info: RunStartInfo): RunStartInfo {
    return this.once(info, () => ({
      ...info,
      outputDir: this.outputName,
      cases: info.cases.map((c) => this.caseInfo(c)),
    }));
  }

  run(result: RunResult): RunResult {
    return this.once(result, () => ({
      ...result,
      provenance: {
        ...result.provenance,
        playbooks: result.provenance.playbooks.map((p) => ({ ...p, path: this.file(p.path) })),
      },
      ...(result.figures ? { figures: result.figures.map((f) => this.artefact(f)) } : {}),
      ...(result.unusedGoldens ? { unusedGoldens: result.unusedGoldens.map((g) => this.file(g)) } : {}),
      cases: this.cases(result.cases),
    }));
  }

  private span(span: SourceSpan): SourceSpan {
    return { ...span, file: this.file(span.file) };
  }

  private artefact(a: Artefact): Artefact {
    return a.provenance ? { ...a, provenance: this.provenance(a.provenance) } : a;
  }

  private provenance(p: FigureProvenance): FigureProvenance {
    if (p.inputs === undefined) return { ...p, playbook: this.file(p.playbook) };
    const inputs: Record<string, string> = {};
    for (const [path, hash] of Object.entries(p.inputs)) inputs[this.file(path)] = hash;
    return { ...p, playbook: this.file(p.playbook), inputs };
  }

  /** The cases, named as each is read; their summaries at once. */
  private cases(list: CaseList): CaseList {
    const summaries = list.summaries.map((s) => ({ ...s, playbook: this.file(s.playbook) }));
    const named = (c: CaseResult): CaseResult => this.caseInfo(c);
    const reader = async (): Promise<CaseReader> => {
      const inner = await list.reader();
      return { read: async (position) => named(await inner.read(position)), close: () => inner.close() };
    };
    async function* pick(positions: Iterable<number>): AsyncIterable<CaseResult> {
      for await (const c of list.pick(positions)) yield named(c);
    }
    return {
      summaries,
      pick,
      reader,
      all: async () => (await list.all()).map(named),
      [Symbol.asyncIterator]: () => pick(summaries.keys())[Symbol.asyncIterator](),
    };
  }

  /** Each event's object is named once, however many reporters receive it. */
  private once<T extends object>(value: T, name: () => T): T {
    let named = this.done.get(value) as T | undefined;
    if (named === undefined) {
      named = name();
      this.done.set(value, named);
    }
    return named;
  }
}

/** A reporter that receives every event with the names of `names`. */
export function withNames(reporter: Reporter, names: ReportNames): Reporter {
  const r = reporter;
  const name = reporterName(reporter);
  const named: Reporter = name !== undefined ? { name } : {};
  if (r.onRunStart) named.onRunStart = (info) => r.onRunStart!(names.runStart(info));
  if (r.onCaseStart) named.onCaseStart = (c, worker) => r.onCaseStart!(names.caseInfo(c), worker);
  if (r.onStepStart) named.onStepStart = (c, step) => r.onStepStart!(names.caseInfo(c), names.step(step));
  if (r.onStepRetry)
    named.onStepRetry = (c, step, attempt, delay) =>
      r.onStepRetry!(names.caseInfo(c), names.step(step), attempt, delay);
  if (r.onStepEnd) named.onStepEnd = (c, step) => r.onStepEnd!(names.caseInfo(c), names.step(step));
  if (r.onCaseEnd) named.onCaseEnd = (c) => r.onCaseEnd!(names.caseInfo(c));
  if (r.onNotice) named.onNotice = (message) => r.onNotice!(message);
  if (r.onRunEnd) named.onRunEnd = (result) => r.onRunEnd!(names.run(result));
  return named;
}

/** The wrapped reporter's own name, so a failure still names the reporter that failed. */
function reporterName(reporter: Reporter): string | undefined {
  if (reporter.name) return reporter.name;
  const ctor = (reporter as { constructor?: { name?: string } }).constructor?.name;
  return ctor && ctor !== 'Object' ? ctor : undefined;
}
