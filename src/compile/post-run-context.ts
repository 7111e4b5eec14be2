import { resolve } from 'node:path';
import type { DiagnosticCode } from '../diagnostics/diagnostic.js';
import { displayPath } from '../playbook/source.js';
import { entry, type YEntry, type YNode, type YScalar } from '../playbook/tree.js';
import type { PostRunCompileContext, StageCase } from '../steps/post-run/post-run-stage.js';
import { postRunStages, type PostRunPlans } from '../steps/post-run/stages.js';
import type { ValuePath } from '../steps/step-definition.js';
import type { Foreach } from './foreach.js';
import { expandNode, type Scope } from './interpolate.js';
import type { LoadedFile, Session } from './session.js';

/** The playbook's post-run stages (`contact_sheet`, ...), compiled once its cases are. */
export function compilePostRun(
  session: Session,
  file: LoadedFile,
  scope: Scope,
  foreach: Foreach | undefined,
  cases: readonly StageCase[],
): PostRunPlans {
  const plans: Record<string, unknown> = {};
  for (const stage of postRunStages) {
    const found = file.root ? entry(file.root, stage.key) : undefined;
    if (!found) continue;
    const args = stage.compile(new StageCompileContext(session, file, found, scope, foreach, cases));
    if (args !== undefined) plans[stage.key] = args;
  }
  return plans as PostRunPlans;
}

/** The compile context of one post-run stage: its block of the playbook and the compiled cases. */
class StageCompileContext implements PostRunCompileContext {
  constructor(
    private readonly session: Session,
    private readonly file: LoadedFile,
    private readonly found: YEntry,
    /** The playbook's variables without a study: what a value for the whole run sees. */
    private readonly scope: Scope,
    private readonly foreach: Foreach | undefined,
    readonly cases: readonly StageCase[],
  ) {}

  get value(): YNode {
    return this.found.value;
  }

  get studyVariable(): string | undefined {
    return this.foreach?.as;
  }

  error(code: DiagnosticCode, path: ValuePath, message: string, hint?: string, onKey = false): void {
    this.session.error(code, message, hint, this.session.spanAt(this.file.source, this.found.value, path, onKey));
  }

  keyError(code: DiagnosticCode, message: string, hint?: string): void {
    this.session.error(code, message, hint, this.file.source.span(this.found.keyRange.start, this.found.keyRange.end));
  }

  textError(code: DiagnosticCode, node: YScalar, offset: number, length: number, message: string, hint?: string): void {
    this.session.error(
      code,
      message,
      hint,
      this.session.templateSpan(this.file.source, node, { code, message, offset, length }),
    );
  }

  expand(node: YScalar, study?: StageCase): string | undefined {
    const scope: Scope =
      study && this.foreach ? { ...this.scope, study: { as: this.foreach.as, fields: study.study } } : this.scope;
    let failed = false;
    const value = expandNode(node, scope, (s, p) => {
      failed = true;
      if (!p.silent) this.session.error(p.code, p.message, p.hint, this.session.templateSpan(this.file.source, s, p));
    });
    return failed ? undefined : String(value);
  }

  resolvePath(value: string): string {
    return resolve(this.file.dir, value);
  }

  displayPath(path: string): string {
    return displayPath(path, this.session.options.displayRoot);
  }
}
