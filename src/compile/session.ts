import { spanAt } from '../playbook/span.js';
import type * as Crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Diagnostic, DiagnosticCode, Span } from '../diagnostics/diagnostic.js';
import { parseSource } from '../playbook/parse.js';
import { translateErrors, type DefMessages } from '../playbook/schema-errors.js';
import { displayPath, readSource, type SourceFile } from '../playbook/source.js';
import { toPlain, type PathSegment, type YMap, type YNode, type YScalar, type YSeq } from '../playbook/tree.js';
import { validators } from './validators.generated.js';
import { isAddressProblem, parseWindowAddress } from '../steps/window-address.js';
import type { TemplateProblem } from './interpolate.js';
import { topValidationSchema } from './schemas.js';

export interface SessionOptions {
  checkFiles: boolean;
  env: NodeJS.ProcessEnv;
  /** Paths in messages are shown relative to this folder. */
  displayRoot: string;
  /** Find every problem but build no plan (what `wbplay validate` needs, in less time). */
  checkOnly: boolean;
}

/** One playbook file, parsed and checked at the top level once, however often it is included. */
export interface LoadedFile {
  source: SourceFile;
  dir: string;
  /** Computed when read: only a plan records it. */
  readonly sha256: string;
  root?: YMap;
  /** The top level's plain value, when it is a map. */
  top: Record<string, unknown>;
  steps?: YSeq;
}

/** Shared-definition errors said once for the whole value. */
export const DEF_MESSAGES: DefMessages = {
  color: (_v, name) => ({
    code: 'BAD_COLOR',
    message: `${name} must be three numbers r, g, b from 0 to 1`,
    hint: 'e.g. [1.0, 0.3, 0.2]',
  }),
  vec3: (_v, name) => ({
    code: 'BAD_VECTOR',
    message: `${name} must be three numbers [x, y, z]`,
    hint: 'e.g. [12.5, -4, 30], in world millimetres',
  }),
  window: (v, name) => {
    if (typeof v !== 'string') return undefined;
    const parsed = parseWindowAddress(v);
    return isAddressProblem(parsed)
      ? { code: 'WINDOW_ADDRESS', message: parsed.message, hint: parsed.hint }
      : { code: 'WINDOW_ADDRESS', message: `${name} \`${v}\` is not a window address` };
  },
  alias: (v, name) =>
    typeof v === 'string'
      ? {
          code: 'BAD_VALUE',
          message: `${name} \`${v}\` is not a valid alias`,
          hint: 'an alias is a letter or `_` followed by letters, digits, `_`, `.` or `-`',
        }
      : undefined,
};

/**
 * Only a plan records hashes: node:crypto is loaded when one is read, so `wbplay validate` does
 * not load it at all.
 */
function sha256Of(text: string): string {
  const { createHash } = createRequire(import.meta.url)('node:crypto') as typeof Crypto;
  return createHash('sha256').update(text).digest('hex');
}

/** The state of one compile: options, files read, and every problem found so far. */
export class Session {
  readonly diagnostics: Diagnostic[];
  /** What may go wrong without being an error; every fork adds to the same list. */
  readonly warnings: Diagnostic[];
  private readonly files: Map<string, LoadedFile | undefined>;
  /** Other files a diagnostic points into (a study manifest), by shown path. */
  private readonly others: Map<string, string>;

  constructor(
    readonly options: SessionOptions,
    from?: {
      files: Map<string, LoadedFile | undefined>;
      others: Map<string, string>;
      diagnostics?: Diagnostic[];
      warnings?: Diagnostic[];
    },
  ) {
    this.files = from?.files ?? new Map();
    this.others = from?.others ?? new Map();
    this.diagnostics = from?.diagnostics ?? [];
    this.warnings = from?.warnings ?? [];
  }

  /**
   * A session over the files this one has read, with other options. A cohort checks its
   * studies in one that shares this one's problems and builds no steps; each case is compiled
   * when it runs, in one with problems of its own.
   */
  fork(options: Partial<SessionOptions>, problems: 'shared' | 'own'): Session {
    return new Session(
      { ...this.options, ...options },
      {
        files: this.files,
        others: this.others,
        warnings: this.warnings,
        ...(problems === 'shared' ? { diagnostics: this.diagnostics } : {}),
      },
    );
  }

  report(d: Diagnostic): void {
    this.diagnostics.push(d);
  }

  /** The text of every file read, by shown path, for the renderer. */
  sources(): Map<string, string> {
    const out = new Map<string, string>();
    for (const f of this.files.values()) if (f) out.set(f.source.display, f.source.text);
    for (const [shown, text] of this.others) out.set(shown, text);
    return out;
  }

  loaded(): LoadedFile[] {
    return [...this.files.values()].filter((f): f is LoadedFile => f !== undefined);
  }

  /** Reads, parses and checks the top level of a playbook file; undefined when it cannot be read. */
  load(path: string): LoadedFile | undefined {
    if (this.files.has(path)) return this.files.get(path);
    let source: SourceFile;
    try {
      source = readSource(path, this.options.displayRoot);
    } catch {
      this.files.set(path, undefined);
      return undefined;
    }
    const parsed = parseSource(source);
    for (const d of parsed.diagnostics) this.report(d);
    const file: LoadedFile = {
      source,
      dir: dirname(source.path),
      get sha256() {
        return sha256Of(source.text);
      },
      top: {},
    };
    this.files.set(path, file);
    if (parsed.diagnostics.length > 0) return file;
    const root = parsed.root;
    if (!root || root.type !== 'map') {
      this.report({
        code: 'NOT_A_MAP',
        message: 'a playbook is a map with `version: 1` and `steps:`',
        hint: 'start the file with `version: 1` and list the steps under `steps:`',
        span: source.span(root?.start ?? 0, root?.end ?? 1),
      });
      return file;
    }
    file.root = root;
    // The top level without the steps' contents: each step is validated on its own later.
    const top: Record<string, unknown> = {};
    for (const e of root.entries)
      top[e.key] = e.key === 'steps' && e.value.type === 'seq' ? e.value.items.map(() => ({})) : toPlain(e.value);
    file.top = top;
    const validate = validators.top;
    if (!validate(top)) {
      for (const p of translateErrors(validate.errors ?? [], topValidationSchema(), top, DEF_MESSAGES)) {
        this.report({
          code: p.code,
          message: p.message,
          ...(p.hint ? { hint: p.hint } : {}),
          span: this.spanAt(source, root, p.path, p.onKey),
        });
      }
    }
    const steps = root.entries.find((e) => e.key === 'steps')?.value;
    if (steps?.type === 'seq') file.steps = steps;
    return file;
  }

  /** Where a value (or its key) is; a missing value is shown at the nearest thing that exists. */
  spanAt(source: SourceFile, root: YNode, path: readonly PathSegment[], onKey: boolean): Span {
    return spanAt(source, root, path, onKey);
  }

  /** A template problem at its characters when the scalar's text is verbatim, else the scalar. */
  templateSpan(source: SourceFile, node: YScalar, p: TemplateProblem): Span {
    if (node.verbatim) return source.span(node.textStart + p.offset, node.textStart + p.offset + p.length);
    return source.span(node.start, node.end);
  }

  /** A problem at a line of a file that is not a playbook (a study manifest); its text, if any, is quoted. */
  fileError(
    code: DiagnosticCode,
    at: { file: string; line: number; col: number; text?: string },
    message: string,
    hint: string | undefined,
  ): void {
    const file = displayPath(at.file, this.options.displayRoot);
    if (at.text !== undefined) this.others.set(file, at.text);
    const span = { file, line: at.line, col: at.col, endLine: at.line, endCol: at.col + 1 };
    this.error(code, message, hint, span);
  }

  error(code: DiagnosticCode, message: string, hint: string | undefined, span: Span | undefined): void {
    this.report({ code, message, ...(hint ? { hint } : {}), ...(span ? { span } : {}) });
  }
}
