import { createRequire } from 'node:module';
import type * as YamlModule from 'yaml';
import type { Document, Node as YamlNode, Scalar } from 'yaml';
import { fastParse } from './fast-parse.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { SourceFile } from './source.js';
import type { YEntry, YNode, YScalar } from './tree.js';

export interface ParsedSource {
  source: SourceFile;
  /** Absent when the file is empty or so broken that nothing can be read from it. */
  root?: YNode;
  diagnostics: Diagnostic[];
}

type YamlLib = typeof YamlModule;
let yamlLib: YamlLib | undefined;

/** The `yaml` library, loaded only when a file needs more than the fast reader handles. */
function yaml(): YamlLib {
  yamlLib ??= createRequire(import.meta.url)('yaml') as YamlLib;
  return yamlLib;
}

/** Parses one YAML file into the positioned tree; every YAML problem becomes a diagnostic. */
export function parseSource(source: SourceFile): ParsedSource {
  const fast = fastParse(source.text);
  if (fast) return { source, root: fast, diagnostics: [] };
  return parseWithYaml(source);
}

/** The reference parse, with the `yaml` library: used for every file the fast reader declines. */
export function parseWithYaml(source: SourceFile): ParsedSource {
  const doc = yaml().parseDocument(source.text, {
    uniqueKeys: true,
    prettyErrors: false,
    strict: true,
    keepSourceTokens: false,
  });
  const diagnostics: Diagnostic[] = [];
  for (const err of doc.errors) diagnostics.push(yamlProblem(source, err.code, err.message, err.pos));
  if (diagnostics.length > 0 || !doc.contents) return { source, diagnostics };
  const builder = new TreeBuilder(source, doc, diagnostics);
  const root = builder.build(doc.contents as YamlNode, 0);
  return { source, ...(root ? { root } : {}), diagnostics };
}

function yamlProblem(source: SourceFile, code: string, message: string, pos: [number, number]): Diagnostic {
  if (code === 'DUPLICATE_KEY') {
    const key = /^[^:\n]*/.exec(source.text.slice(pos[0]))?.[0].trim() ?? '';
    return {
      code: 'DUPLICATE_KEY',
      message: `duplicate key${key ? ` \`${key}\`` : ''}`,
      hint: 'a key may appear once per map; remove or rename one of them',
      span: source.span(pos[0], pos[0] + Math.max(1, key.length)),
    };
  }
  const span = source.span(pos[0], pos[1]);
  // The library's own first sentence is the clearest statement of a syntax error.
  const first =
    message
      .split('\n')[0]
      ?.replace(/ at line \d+, column \d+:?$/, '')
      .trim() ?? message;
  return {
    code: 'YAML_SYNTAX',
    message: `YAML syntax: ${first.charAt(0).toLowerCase()}${first.slice(1)}`,
    hint: 'check indentation, colons and matching quotes or brackets around this place',
    span,
  };
}

class TreeBuilder {
  constructor(
    private readonly source: SourceFile,
    private readonly doc: Document,
    private readonly diagnostics: Diagnostic[],
  ) {}

  build(node: YamlNode | null | undefined, fallback: number, depth = 0): YNode | undefined {
    if (node === null || node === undefined) return nullScalar(fallback);
    // Anchors may nest or refer to themselves; a sane playbook never goes this deep.
    if (depth > 64) return nullScalar(fallback);
    const [start, end] = node.range ?? [fallback, fallback];
    const { isAlias, isMap, isPair, isScalar, isSeq } = yaml();
    if (isAlias(node)) {
      const target = node.resolve(this.doc);
      const built = this.build(target as YamlNode | undefined, start, depth + 1);
      return built ? { ...built, start, end: node.range?.[1] ?? start } : undefined;
    }
    if (isScalar(node)) return this.scalar(node, start, end);
    if (isSeq(node)) {
      const items: YNode[] = [];
      for (const item of node.items) {
        const built = this.build(item as YamlNode, end, depth + 1);
        if (built) items.push(built);
      }
      return { type: 'seq', start, end, items };
    }
    if (isMap(node)) {
      const entries: YEntry[] = [];
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as YamlNode | null;
        const keyRange = keyNode?.range ?? [start, start];
        if (keyNode && !isScalar(keyNode)) {
          this.diagnostics.push({
            code: 'YAML_SYNTAX',
            message: 'a key must be a plain word, not a list or a map',
            hint: 'write keys as simple names such as `file:`',
            span: this.source.span(keyRange[0], keyRange[1]),
          });
          continue;
        }
        const key = keyNode ? String(keyNode.value) : '';
        const value = this.build(pair.value as YamlNode | null, keyRange[1], depth + 1);
        if (value) entries.push({ key, keyRange: { start: keyRange[0], end: keyRange[1] }, value });
      }
      return { type: 'map', start, end, entries };
    }
    return undefined;
  }

  private scalar(node: Scalar, start: number, end: number): YScalar {
    const raw = node.value;
    let value: YScalar['value'];
    if (raw === null || raw === undefined) value = null;
    else if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') value = raw;
    else if (typeof raw === 'bigint') value = Number(raw);
    else value = String(raw);
    const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
    const block = node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED';
    const textStart = quoted ? start + 1 : start;
    const text = this.source.text.slice(textStart, quoted ? end - 1 : end);
    const verbatim = !block && typeof value === 'string' && text === value;
    return { type: 'scalar', start, end, value, textStart, verbatim };
  }
}

function nullScalar(at: number): YScalar {
  return { type: 'scalar', start: at, end: at, value: null, textStart: at, verbatim: false };
}
