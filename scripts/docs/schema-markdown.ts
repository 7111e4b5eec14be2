// JSON Schema fragments as Markdown: a field's type, allowed values and default in words, and
// tables of an object's fields. Shared definitions (`$ref`) become links to their own section,
// so a window address or a colour is explained once.

export type Schema = { [key: string]: unknown };

export interface Row {
  field: string;
  type: string;
  default: string;
  description: string;
}

export interface SchemaText {
  /** The definitions `$ref` points into, by name. */
  defs: Readonly<Record<string, Schema>>;
  /** The anchor of a definition's section, e.g. `#window`. */
  anchor(name: string): string;
}

/** A table cell: one line, pipes escaped. */
export function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
}

export function code(value: unknown): string {
  // A string with a control character (a tab) is shown as YAML writes it: "\t".
  const text = typeof value === 'string' && !/[\t\n\r]/.test(value) ? value : JSON.stringify(value);
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

function refName(ref: unknown): string | undefined {
  return typeof ref === 'string' ? /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1] : undefined;
}

/** A number's bounds in words: `0 to 1`, `≥ 1`, `> 0`. */
function bounds(s: Schema): string {
  const bound = (inclusive: unknown, exclusive: unknown) =>
    inclusive !== undefined
      ? { n: inclusive, strict: false }
      : exclusive !== undefined
        ? { n: exclusive, strict: true }
        : undefined;
  const low = bound(s.minimum, s.exclusiveMinimum);
  const high = bound(s.maximum, s.exclusiveMaximum);
  if (low && high && !low.strict && !high.strict) return `${String(low.n)} to ${String(high.n)}`;
  const parts: string[] = [];
  if (low) parts.push(`${low.strict ? '>' : '≥'} ${String(low.n)}`);
  if (high) parts.push(`${high.strict ? '<' : '≤'} ${String(high.n)}`);
  return parts.join(', ');
}

/** The type of a value in words, with its allowed values: `number, 0 to 1`, `one of \`png\`, \`jpeg\``. */
export function typeText(s: Schema, ctx: SchemaText): string {
  const ref = refName(s.$ref);
  if (ref !== undefined) return `[${ref.replace(/_/g, ' ')}](${ctx.anchor(ref)})`;
  if (s.const !== undefined) return code(s.const);
  if (Array.isArray(s.enum)) return `one of ${s.enum.map(code).join(', ')}`;
  const alternatives = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (alternatives) return alternatives.map((a) => typeText(a, ctx)).join(', or ');
  const type = s.type;
  if (Array.isArray(type)) return type.map((t) => ({ object: 'map', array: 'list' })[t as string] ?? t).join(' or ');
  if (type === undefined && Object.keys(s).every((k) => k === 'description' || k === 'title')) return 'any value';
  const extra: string[] = [];
  switch (type) {
    case 'number':
    case 'integer': {
      const b = bounds(s);
      if (b) extra.push(b);
      break;
    }
    case 'string':
      if (typeof s.pattern === 'string') extra.push(`matching ${code(s.pattern)}`);
      else if (s.minLength === 1) extra.push('not empty');
      break;
    case 'array': {
      const items = s.items as Schema | undefined;
      const count =
        s.minItems !== undefined && s.minItems === s.maxItems
          ? `${String(s.minItems)} `
          : s.minItems !== undefined && (s.minItems as number) > 0
            ? `${String(s.minItems)} or more `
            : '';
      return `list of ${count}${items ? plural(typeText(items, ctx)) : 'values'}`;
    }
    case 'object':
      if (s.properties === undefined && typeof s.additionalProperties === 'object')
        return `map of ${plural(typeText(s.additionalProperties as Schema, ctx))}`;
      return 'map';
    case 'null':
      return 'nothing';
  }
  return [String(type ?? 'any value'), ...extra].join(', ');
}

/** `string, not empty` → `strings, not empty`; links, values and alternatives of values stay. */
function plural(text: string): string {
  return text
    .replace(/^(string|number|integer|boolean|map)\b/, '$1s')
    .replace(/ or (string|number|integer|boolean|map)\b/g, ' or $1s');
}

/** The default as the schema states it: its `default`, else the description's "default …" phrase. */
export function defaultText(s: Schema, ctx: SchemaText, required: boolean): string {
  if (required) return 'required';
  const own = findDefault(s);
  if (own !== undefined) return code(own);
  const described = describedDefault(description(s, ctx));
  return described ?? '—';
}

function findDefault(s: Schema): unknown {
  if (s.default !== undefined) return s.default;
  for (const alt of (s.anyOf ?? []) as Schema[]) if (alt.default !== undefined) return alt.default;
  return undefined;
}

/** `(default 300)`, `(default: the workbench's)`, `; default: the window's own size.`, `Default: …`. */
export function describedDefault(text: string): string | undefined {
  const inParens = /\(default:? ((?:[^()]|\([^()]*\))+)\)/i.exec(text);
  if (inParens) return inParens[1]!.trim();
  const after = /(?:[;,.]\s*default:? |^default: )(.+?)(?:\.(?:\s|$)|;|$)/i.exec(text);
  return after ? after[1]!.trim() : undefined;
}

/** A field's description, or that of the definition it refers to. */
export function description(s: Schema, ctx: SchemaText): string {
  if (typeof s.description === 'string') return s.description;
  const ref = refName(s.$ref);
  const def = ref !== undefined ? ctx.defs[ref] : undefined;
  return typeof def?.description === 'string' ? def.description : '';
}

/** The fields of an object schema, in their order; nested objects as `parent.child` rows after their parent. */
export function fieldRows(s: Schema, ctx: SchemaText, prefix = ''): Row[] {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required ?? []) as string[]);
  const rows: Row[] = [];
  for (const [name, prop] of Object.entries(properties)) {
    const field = `${prefix}${name}`;
    rows.push({
      field,
      type: typeText(prop, ctx),
      default: defaultText(prop, ctx, required.has(name)),
      description: description(prop, ctx),
    });
    for (const inner of nestedObjects(prop)) rows.push(...fieldRows(inner.schema, ctx, `${field}${inner.suffix}.`));
  }
  return rows;
}

/** Objects inside a field that have fields of their own: the field itself, list items, alternatives. */
function nestedObjects(s: Schema): { schema: Schema; suffix: string }[] {
  if (s.properties !== undefined) return [{ schema: s, suffix: '' }];
  if (s.type === 'array' && s.items && typeof s.items === 'object' && (s.items as Schema).properties)
    return [{ schema: s.items as Schema, suffix: '[]' }];
  const alternatives = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (alternatives) return alternatives.flatMap(nestedObjects);
  return [];
}

export function table(rows: readonly Row[], third = 'default', fourth = 'what it does'): string {
  if (rows.length === 0) return '';
  return [
    `| field | type | ${third} | ${fourth} |`,
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| \`${r.field}\` | ${cell(r.type)} | ${cell(r.default)} | ${cell(r.description)} |`),
  ].join('\n');
}

/** Object-level rules a table cannot show. */
export function objectRules(s: Schema): string[] {
  const rules: string[] = [];
  const props = Object.keys((s.properties ?? {}) as object);
  if (s.minProperties === 1 && s.maxProperties === 1) rules.push(`Give exactly one of ${props.map(code).join(', ')}.`);
  else if (s.minProperties === 1) rules.push(`Give at least one field.`);
  return rules;
}
