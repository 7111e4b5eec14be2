/**
 * JSON that keeps the spelling of numbers. The workbench types a property by the literal a
 * client wrote: `1` is an IntProperty and `1.0` a FloatProperty. `JSON.parse` gives both as
 * the number 1, and in Node 20 its reviver cannot see the source text (that arrives with
 * V8 11.4), so request bodies are re-read here; and `JSON.stringify(1.0)` writes `1`, so float
 * properties are written back with a fraction, as the real server's JSON library does.
 */

/** A number written with a fraction or an exponent (`1.0`, `2e-3`). */
export class FloatLiteral {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

export type Json = null | boolean | number | string | FloatLiteral | Json[] | { [key: string]: Json };

export class JsonSyntaxError extends Error {
  override name = 'JsonSyntaxError';
}

/**
 * Parses JSON text; integers come back as numbers and fraction/exponent literals as
 * `FloatLiteral`. Syntax errors are found by `JSON.parse` first (its messages are precise), so
 * the walk below only ever sees valid JSON.
 */
export function parseJson(text: string): Json {
  checkNesting(text);
  try {
    JSON.parse(text);
  } catch (err) {
    throw new JsonSyntaxError(err instanceof Error ? err.message : String(err));
  }
  const walker = new Walker(text);
  return walker.value();
}

/**
 * How deep a request body may nest arrays and objects. Nothing the API takes comes close (a
 * layout document of many nested splits stays within a few dozen levels), while a body nested
 * tens of thousands of levels deep would overflow the stack of every recursive reader and
 * writer of JSON values, turning a client's mistake into a server error.
 */
export const MAX_JSON_DEPTH = 256;

/** Refuses text nested deeper than `MAX_JSON_DEPTH`, in one pass without building anything. */
export function checkNesting(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH)
        throw new JsonSyntaxError(`arrays and objects nested deeper than ${MAX_JSON_DEPTH} levels`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

class Walker {
  private i = 0;
  constructor(private readonly text: string) {}

  value(): Json {
    this.space();
    const c = this.text[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === 't') return this.word('true', true);
    if (c === 'f') return this.word('false', false);
    if (c === 'n') return this.word('null', null);
    return this.number();
  }

  private object(): { [key: string]: Json } {
    const out: { [key: string]: Json } = {};
    this.i++;
    this.space();
    if (this.text[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.space();
      const key = this.string();
      this.space();
      this.i++; // ':'
      // Later duplicates win, as in JSON.parse; defineProperty keeps `__proto__` an own key.
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.space();
      if (this.text[this.i++] === '}') return out;
    }
  }

  private array(): Json[] {
    const out: Json[] = [];
    this.i++;
    this.space();
    if (this.text[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.space();
      if (this.text[this.i++] === ']') return out;
    }
  }

  private string(): string {
    const start = this.i;
    this.i++;
    while (this.text[this.i] !== '"') this.i += this.text[this.i] === '\\' ? 2 : 1;
    this.i++;
    return JSON.parse(this.text.slice(start, this.i)) as string;
  }

  private number(): number | FloatLiteral {
    const m = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
    m.lastIndex = this.i;
    const found = m.exec(this.text)!;
    this.i = m.lastIndex;
    const n = Number(found[0]);
    return found[1] !== undefined || found[2] !== undefined ? new FloatLiteral(n) : n;
  }

  private word<T>(word: string, value: T): T {
    this.i += word.length;
    return value;
  }

  private space(): void {
    while (/[ \t\r\n]/.test(this.text[this.i] ?? '')) this.i++;
  }
}

/** The plain JavaScript value (float literals become numbers). */
export function plain(value: Json): unknown {
  return JSON.parse(JSON.stringify(value));
}

/**
 * Serializes like `JSON.stringify`, except that `FloatLiteral`s keep a fraction (`1.0`).
 * Non-finite numbers become `null`, as `JSON.stringify` writes them.
 */
export function writeJson(value: unknown): string {
  if (value instanceof FloatLiteral) {
    if (!Number.isFinite(value.value)) return 'null';
    const s = JSON.stringify(value.value);
    return /[.eE]/.test(s) ? s : `${s}.0`;
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : writeJson(v))).join(',')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined || typeof v === 'function') continue;
    parts.push(`${JSON.stringify(k)}:${writeJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}
