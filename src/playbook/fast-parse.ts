import type { YEntry, YMap, YNode, YScalar, YSeq } from './tree.js';

/**
 * A fast reader for the plain YAML that playbooks are made of: block maps and lists, one-line
 * flow maps and lists, plain and simply quoted scalars, comments. It builds the same tree as
 * the `yaml` library (the test suite checks that on every example, fixture and fuzzed file)
 * in a fraction of the time, which keeps `wbplay validate` of large playbooks fast.
 *
 * It gives up, returning undefined, on anything else: anchors, tags, block scalars, multi-line
 * scalars, document markers, tabs, duplicate keys, errors of any kind. The caller then parses
 * with `yaml`, which also produces every syntax error message.
 */
export function fastParse(text: string): YNode | undefined {
  if (/[\t\r\uFEFF]/.test(text) || text.includes('\n---') || text.startsWith('---') || text.startsWith('%'))
    return undefined;
  try {
    return new Reader(text).document();
  } catch (err) {
    if (err === GIVE_UP) return undefined;
    throw err;
  }
}

const GIVE_UP = Symbol('give up');
function giveUp(): never {
  throw GIVE_UP;
}

interface Line {
  start: number;
  indent: number;
  /** Offset of the line's end (its newline, or the text's end). */
  end: number;
}

// Indicators that may not start a plain scalar, and core-schema scalars that need care.
const PLAIN_START_BAD = /^[[\]{}#&*!|>'"%@`,?:]/;
const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const FLOW_KEY = /([A-Za-z_][A-Za-z0-9_.-]*): /y;
// A block key: a simple name, optional spaces, a colon, then a space or the end of the line.
const BLOCK_KEY = /([A-Za-z_][A-Za-z0-9_.-]*) *:(?=[ \n]|$)/y;
const PLAIN_FLOW = /[^,[\]{}\n]*/y;
const PLAIN_BLOCK = /[^\n]*/y;
const SPACE = 32;
const NEWLINE = 10;
const COMMA = 44;
const COLON = 58;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const SPECIAL = /^(?:0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;

class Reader {
  private readonly lines: Line[] = [];
  private i = 0;

  constructor(private readonly text: string) {
    let start = 0;
    while (start <= text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      let indent = 0;
      while (text[start + indent] === ' ') indent++;
      const first = text[start + indent];
      // Blank and comment-only lines carry no content.
      if (first !== undefined && first !== '\n' && first !== '#') this.lines.push({ start, indent, end });
      start = end + 1;
    }
  }

  document(): YNode | undefined {
    const first = this.lines[0];
    if (!first) return undefined;
    if (first.indent !== 0) giveUp();
    // The `yaml` library counts indented comments after the last entry into the document's range.
    if (/\n +#/.test(this.text.slice((this.lines[this.lines.length - 1] as Line).end))) giveUp();
    const node = this.block(0);
    if (this.i < this.lines.length) giveUp();
    return node;
  }

  /** A block collection whose first line is the current one, at exactly `indent`. */
  private block(indent: number): YMap | YSeq {
    const line = this.lines[this.i];
    if (!line || line.indent !== indent) giveUp();
    return this.isDash(line.start + indent) ? this.seq(indent) : this.map(indent, line.start + indent);
  }

  private isDash(at: number): boolean {
    return (
      this.text[at] === '-' && (this.text[at + 1] === ' ' || this.text[at + 1] === '\n' || at + 1 === this.text.length)
    );
  }

  /** A list whose items' dashes are at column `indent`; `first` is set when it starts after another dash. */
  private seq(indent: number, first?: number): YSeq {
    const items: YNode[] = [];
    const start = first ?? (this.lines[this.i] as Line).start + indent;
    let end = start;
    while (this.i < this.lines.length) {
      const line = this.lines[this.i] as Line;
      const dash = first !== undefined && items.length === 0 ? first : line.start + indent;
      if ((first === undefined || items.length > 0) && line.indent !== indent) break;
      if (!this.isDash(dash)) break;
      let at = dash + 1;
      while (this.text[at] === ' ') at++;
      let item: YNode;
      if (at >= line.end || this.text[at] === '#') {
        this.i++;
        item = this.nested(indent, true);
      } else if (this.isDash(at)) {
        // A list starting on the dash's line: `- - a`.
        item = this.seq(at - line.start, at);
      } else if (this.keyAhead(at, line.end)) {
        // A map starting on the dash's line: its keys line up with the first one.
        const column = at - line.start;
        item = this.map(column, at, true);
      } else {
        item = this.inlineValue(at, line);
        this.i++;
        this.noContinuation(indent);
      }
      items.push(item);
      end = this.endOf(item);
    }
    return { type: 'seq', start, end, items };
  }

  private map(indent: number, first: number, compact = false): YMap {
    const entries: YEntry[] = [];
    let end = first;
    let startAt = first;
    while (this.i < this.lines.length) {
      const line = this.lines[this.i] as Line;
      const at = compact && entries.length === 0 ? startAt : line.start + indent;
      if (!(compact && entries.length === 0) && line.indent !== indent) break;
      if (this.isDash(at)) break;
      const key = this.plainKey(at, line.end);
      if (hasKey(entries, key.text)) giveUp();
      let v = key.colon + 1;
      while (this.text[v] === ' ') v++;
      let value: YNode;
      if (v >= line.end || this.text[v] === '#') {
        this.i++;
        value = this.nested(indent, false);
      } else {
        value = this.inlineValue(v, line);
        this.i++;
        this.noContinuation(indent);
      }
      entries.push({ key: key.text, keyRange: { start: at, end: key.end }, value });
      end = this.endOf(value);
      startAt = 0;
    }
    return { type: 'map', start: first, end, entries };
  }

  /**
   * The value after `key:` or `-` with nothing else on the line: a deeper block. An empty
   * value (null) is left to the `yaml` library, whose ranges around it follow rules of their
   * own (where the null sits after a comment, whether the map's range takes in the newline).
   */
  private nested(indent: number, inSeq: boolean): YNode {
    const next = this.lines[this.i];
    if (next && next.indent > indent) return this.block(next.indent);
    // A list may sit at its key's own indentation.
    if (!inSeq && next && next.indent === indent && this.isDash(next.start + indent)) return this.seq(indent);
    return giveUp();
  }

  /** A plain scalar that goes on over the next, deeper line is beyond this reader. */
  private noContinuation(indent: number): void {
    const next = this.lines[this.i];
    if (next && next.indent > indent) giveUp();
  }

  private endOf(node: YNode): number {
    if (node.type !== 'scalar' && !this.isFlow(node)) return node.end;
    // Like the `yaml` library: a value's node reaches to the end of its line.
    const nl = this.text.indexOf('\n', node.end);
    return nl < 0 ? this.text.length : nl + 1;
  }

  private isFlow(node: YMap | YSeq): boolean {
    const c = this.text[node.start];
    return c === '{' || c === '[';
  }

  /** Whether the line goes on with `key:` here (rather than a scalar or a flow collection). */
  private keyAhead(at: number, end: number): boolean {
    BLOCK_KEY.lastIndex = at;
    const m = BLOCK_KEY.exec(this.text);
    return m !== null && at + (m[1] as string).length < end;
  }

  private plainKey(at: number, end: number): { text: string; end: number; colon: number } {
    BLOCK_KEY.lastIndex = at;
    const m = BLOCK_KEY.exec(this.text);
    if (!m) return giveUp();
    const text = m[1] as string;
    const colon = this.text.indexOf(':', at + text.length);
    if (colon >= end) giveUp();
    return { text, end: at + text.length, colon };
  }

  /** A value on the rest of a line: flow collection, quoted or plain scalar, then only a comment. */
  private inlineValue(at: number, line: Line): YNode {
    const c = this.text[at];
    let node: YNode;
    let after: number;
    if (c === '{' || c === '[') {
      const r = this.flow(at, line.end);
      node = r.node;
      after = r.after;
    } else if (c === '"' || c === "'") {
      node = this.quoted(at, line.end, false);
      after = node.end;
    } else {
      node = this.plain(at, line.end, false);
      after = node.end;
    }
    const valueEnd = after;
    while (this.text[after] === ' ') after++;
    // Only a comment may follow, and a comment needs a space before its `#`.
    if (after < line.end && (this.text[after] !== '#' || after === valueEnd)) giveUp();
    return node;
  }

  private flow(at: number, end: number): { node: YMap | YSeq; after: number } {
    const open = this.text[at];
    let j = at + 1;
    if (open === '[') {
      const items: YNode[] = [];
      j = this.skipSpaces(j, end);
      while (this.text[j] !== ']') {
        const r = this.flowValue(j, end);
        items.push(r.node);
        j = r.after;
        j = this.skipSpaces(j, end);
        if (this.text[j] === ',') {
          j++;
          j = this.skipSpaces(j, end);
          if (this.text[j] === ']') giveUp();
        } else if (this.text[j] !== ']') giveUp();
      }
      return { node: { type: 'seq', start: at, end: j + 1, items }, after: j + 1 };
    }
    const entries: YEntry[] = [];
    j = this.skipSpaces(j, end);
    while (this.text[j] !== '}') {
      const keyStart = j;
      FLOW_KEY.lastIndex = j;
      const m = FLOW_KEY.exec(this.text);
      if (!m || keyStart + m[0].length > end) giveUp();
      const key = m[1] as string;
      if (hasKey(entries, key)) giveUp();
      j = keyStart + key.length + 1;
      j = this.skipSpaces(j, end);
      const r = this.flowValue(j, end);
      entries.push({ key, keyRange: { start: keyStart, end: keyStart + key.length }, value: r.node });
      j = r.after;
      j = this.skipSpaces(j, end);
      if (this.text[j] === ',') {
        j++;
        j = this.skipSpaces(j, end);
        if (this.text[j] === '}') giveUp();
      } else if (this.text[j] !== '}') giveUp();
    }
    return { node: { type: 'map', start: at, end: j + 1, entries }, after: j + 1 };
  }

  /** The first non-space offset from `j`; the flow collection must go on before the line ends. */
  private skipSpaces(j: number, end: number): number {
    while (this.text.charCodeAt(j) === SPACE) j++;
    if (j >= end) giveUp();
    return j;
  }

  private flowValue(at: number, end: number): { node: YNode; after: number } {
    const c = this.text[at];
    if (c === '{' || c === '[') return this.flow(at, end);
    const node = c === '"' || c === "'" ? this.quoted(at, end, true) : this.plain(at, end, true);
    return { node, after: node.end };
  }

  private quoted(at: number, end: number, inFlow: boolean): YScalar {
    const q = this.text[at] as string;
    const close = this.text.indexOf(q, at + 1);
    if (close < 0 || close >= end) giveUp();
    const text = this.text.slice(at + 1, close);
    // Escapes and doubled quotes are rare in playbooks: the `yaml` library handles them.
    if (q === '"' ? text.includes('\\') : this.text[close + 1] === "'") giveUp();
    const next = this.text.charCodeAt(close + 1);
    if (!(
      Number.isNaN(next) ||
      next === SPACE ||
      next === NEWLINE ||
      (inFlow && (next === COMMA || next === CLOSE_BRACE || next === CLOSE_BRACKET))
    ))
      giveUp();
    return { type: 'scalar', start: at, end: close + 1, value: text, textStart: at + 1, verbatim: true };
  }

  private plain(at: number, end: number, inFlow: boolean): YScalar {
    const c = this.text[at] ?? '';
    if (c === '-' || c === '?' || c === ':') {
      // An indicator starts a plain scalar only when a safe character follows it.
      const next = this.text[at + 1];
      if (next === undefined || next === ' ' || next === '\n' || (inFlow && /[,[\]{}]/.test(next))) giveUp();
    } else if (PLAIN_START_BAD.test(c)) giveUp();
    const re = inFlow ? PLAIN_FLOW : PLAIN_BLOCK;
    re.lastIndex = at;
    const m = re.exec(this.text);
    let k = at + (m ? m[0].length : 0);
    if (k > end) k = end;
    const body = this.text.slice(at, k);
    // `key: value` inside a value and ` #` comments need the full grammar.
    const colon = body.indexOf(': ');
    const hash = body.indexOf(' #');
    if (colon >= 0 && (hash < 0 || colon < hash)) giveUp();
    if (hash >= 0) k = at + hash;
    // A trailing colon is an indicator: before a space or the line's end, and in a flow
    // collection also before the `,`, `]` or `}` that ends the scalar.
    if (
      this.text.charCodeAt(k - 1) === COLON &&
      (inFlow || k === end || this.text.charCodeAt(k) === SPACE || this.text.charCodeAt(k) === NEWLINE)
    )
      giveUp();
    while (this.text.charCodeAt(k - 1) === SPACE) k--;
    const raw = this.text.slice(at, k);
    const value = resolvePlain(raw);
    return { type: 'scalar', start: at, end: k, value, textStart: at, verbatim: typeof value === 'string' };
  }
}

/** Duplicate keys are the `yaml` library's to report. Maps are small: a scan beats a set. */
function hasKey(entries: readonly YEntry[], key: string): boolean {
  for (const e of entries) if (e.key === key) return true;
  return false;
}

/** The YAML 1.2 core schema, as the `yaml` library applies it; unusual forms are left to it. */
function resolvePlain(raw: string): string | number | boolean | null {
  if (raw === '' || raw === '~' || raw === 'null' || raw === 'Null' || raw === 'NULL') return null;
  if (raw === 'true' || raw === 'True' || raw === 'TRUE') return true;
  if (raw === 'false' || raw === 'False' || raw === 'FALSE') return false;
  if (SPECIAL.test(raw)) giveUp();
  if (INT.test(raw)) {
    const n = Number(raw);
    if (!Number.isSafeInteger(n)) giveUp();
    return n;
  }
  if (FLOAT.test(raw)) return Number(raw);
  return raw;
}
