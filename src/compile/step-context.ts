import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { DiagnosticCode, Span } from '../diagnostics/diagnostic.js';
import { closest, suggestion } from '../diagnostics/did-you-mean.js';
import { displayPath } from '../playbook/source.js';
import type { YNode } from '../playbook/tree.js';
import type { NodeRef, StepCompileContext, ValuePath } from '../steps/step-definition.js';
import {
  isAddressProblem,
  parseWindowAddress,
  type WindowAddress,
  type WindowTarget,
} from '../steps/window-address.js';
import type { LoadedFile, Session } from './session.js';

/** What the steps of one case have established so far, as later steps see it. */
export interface CaseState {
  aliases: Set<string>;
  names: Set<string>;
  /** Cells of the last layout step; undefined when no layout step ran or its document is unknown. */
  layoutCells: readonly string[] | undefined;
  inputs: Set<string>;
  /** Output file -> where it is written (computed when needed), to catch two writers. */
  outputs: Map<string, () => Span>;
  /** Folders of series the case retrieves from an archive before it runs: not there yet. */
  retrieved?: readonly string[];
}

const TARGET_WORDS: Record<WindowTarget, string> = {
  app: 'the application window (`app`)',
  editor: 'an editor (`stdmulti`, `mxn`)',
  window: 'a render window (`stdmulti/axial`, `mxn/<cell>`…)',
};

/** The compile context of one step of one case. */
export class StepContext implements StepCompileContext {
  failed = false;

  constructor(
    private readonly session: Session,
    private readonly file: LoadedFile,
    /** The step's value, or undefined for a bare step. */
    private readonly value: YNode | undefined,
    /** The step's kind key: where problems of the step as a whole are shown. */
    private readonly kindSpan: () => Span,
    readonly defaults: Readonly<Record<string, unknown>>,
    private readonly state: CaseState,
    private readonly studyScope?: { fields?: Record<string, unknown> },
  ) {}

  get study(): Readonly<Record<string, unknown>> | undefined {
    return this.studyScope?.fields;
  }

  get studyUnknown(): boolean {
    return this.studyScope !== undefined && this.studyScope.fields === undefined;
  }

  get playbook(): string {
    return basename(this.file.source.path);
  }

  get checkFiles(): boolean {
    return this.session.options.checkFiles;
  }

  error(code: DiagnosticCode, path: ValuePath, message: string, hint?: string): void {
    this.failed = true;
    this.session.error(code, message, hint, this.span(path, false));
  }

  keyError(code: DiagnosticCode, path: ValuePath, message: string, hint?: string): void {
    this.failed = true;
    this.session.error(code, message, hint, this.span(path, true));
  }

  span(path: ValuePath, onKey: boolean): Span {
    if (!this.value || (path.length === 0 && this.value.type === 'scalar' && this.value.value === null))
      return this.kindSpan();
    return this.session.spanAt(this.file.source, this.value, path, onKey);
  }

  resolvePath(value: string): string {
    return resolve(this.file.dir, value);
  }

  inputFile(value: string, path: ValuePath): string {
    const abs = this.resolvePath(value);
    this.state.inputs.add(abs);
    // A path made from a study not known yet (`<study.path>`) cannot be checked.
    const retrieved = this.state.retrieved?.some(
      (dir) => abs === dir || abs.startsWith(`${dir}/`) || dir.startsWith(`${abs}/`),
    );
    if (this.checkFiles && !retrieved && !/<[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z0-9_-]+>/.test(value) && !existsSync(abs)) {
      this.error('FILE_NOT_FOUND', path, `file not found: \`${value}\``, this.missingFileHint(abs));
    }
    return abs;
  }

  /** Where the file was looked for; a folder missing as a whole is most often data not made yet. */
  private missingFileHint(abs: string): string {
    const shown = (p: string): string => displayPath(p, this.session.options.displayRoot);
    const folder = dirname(abs);
    if (!existsSync(folder))
      return `looked for ${shown(abs)}, and the folder ${shown(folder)} does not exist; if it is for the demo data, make it with: npx wbplay demo-data ${shown(folder)}`;
    return `looked for ${shown(abs)}; relative paths start at the playbook's folder`;
  }

  outputFile(value: string, path: ValuePath): string {
    const abs = this.resolvePath(value);
    const earlier = this.state.outputs.get(abs);
    if (earlier) {
      this.error(
        'OUTPUT_COLLISION',
        path,
        `\`${value}\` is already written by the step at line ${earlier().line}`,
        'give every output its own file name',
      );
    } else {
      this.state.outputs.set(abs, () => this.span(path, false));
    }
    return abs;
  }

  window(value: string, path: ValuePath, accept: readonly WindowTarget[]): WindowAddress | undefined {
    const parsed = parseWindowAddress(value);
    if (isAddressProblem(parsed)) {
      this.error('WINDOW_ADDRESS', path, parsed.message, parsed.hint);
      return undefined;
    }
    if (!accept.includes(parsed.target)) {
      this.error(
        'WRONG_TARGET',
        path,
        `\`${value}\` is ${TARGET_WORDS[parsed.target]}, but this step needs ${accept.map((t) => TARGET_WORDS[t]).join(' or ')}`,
        parsed.target === 'editor'
          ? `name one of its windows, e.g. \`${parsed.editor === 'stdmulti' ? 'stdmulti/axial' : 'mxn/mxn__widget0'}\``
          : undefined,
      );
      return undefined;
    }
    const cells = this.state.layoutCells;
    if (parsed.target === 'window' && parsed.editor === 'mxn' && cells && !cells.includes(parsed.window)) {
      this.error(
        'UNKNOWN_CELL',
        path,
        `the current MxN layout has no cell \`${parsed.window}\``,
        suggestion(parsed.window, cells, `its cells are ${cells.join(', ')}`),
      );
      return undefined;
    }
    return parsed;
  }

  node(value: string, path: ValuePath): NodeRef | undefined {
    if (value.startsWith('uid:') || value.startsWith('name:')) {
      for (const prefix of ['uid', 'name'] as const) {
        if (!value.startsWith(`${prefix}:`)) continue;
        const rest = value.slice(prefix.length + 1);
        if (rest === '') {
          this.error(
            'UNKNOWN_NODE',
            path,
            `\`${value}\` names no node`,
            `write ${prefix}:<${prefix === 'uid' ? 'UID' : 'node name'}>`,
          );
          return undefined;
        }
        return prefix === 'uid' ? { uid: rest } : { name: rest };
      }
    }
    if (this.state.aliases.has(value) || this.state.names.has(value)) return { ref: value };
    const known = [...this.state.aliases, ...this.state.names];
    const near = closest(value, known);
    const later = this.laterDefinition(value);
    this.error(
      'UNKNOWN_NODE',
      path,
      `no earlier step defines the node \`${value}\``,
      later !== undefined
        ? `it is defined later, at line ${later}: move that step before this one`
        : near !== undefined
          ? `did you mean \`${near}\`?`
          : `give it an alias with \`load: { file: …, as: ${value} }\` before this step, or write uid:<UID> or name:<name> for a node already in the workbench`,
    );
    return undefined;
  }

  /** The line of a later `load` in this file that gives the alias or name, if any. */
  private laterDefinition(value: string): number | undefined {
    const here = this.kindSpan().line;
    for (const item of this.file.steps?.items ?? []) {
      if (item.type !== 'map' || item.entries[0]?.key !== 'load') continue;
      const body = item.entries[0].value;
      if (body.type !== 'map') continue;
      const named = body.entries.find(
        (e) => (e.key === 'as' || e.key === 'name') && e.value.type === 'scalar' && e.value.value === value,
      );
      if (!named) continue;
      const line = this.file.source.position(item.start).line;
      if (line > here) return line;
    }
    return undefined;
  }

  knownAliases(): readonly string[] {
    return [...this.state.aliases];
  }

  defineNode(alias: string | undefined, name: string | undefined): void {
    if (alias !== undefined) this.state.aliases.add(alias);
    if (name !== undefined) this.state.names.add(name);
  }

  setLayoutCells(cells: readonly string[] | undefined): void {
    this.state.layoutCells = cells;
  }
}
