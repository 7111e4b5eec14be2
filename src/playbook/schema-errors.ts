import type { ErrorObject } from 'ajv';
import type { DiagnosticCode } from '../diagnostics/diagnostic.js';
import { suggestion } from '../diagnostics/did-you-mean.js';

/** A schema violation in our words, located by a path into the validated value. */
export interface SchemaProblem {
  code: DiagnosticCode;
  path: (string | number)[];
  /** Point at the key naming the value rather than at the value. */
  onKey: boolean;
  message: string;
  hint?: string;
}

type Schema = Record<string, unknown>;

/** Messages for values governed by a shared definition, said once for the whole value. */
export type DefMessages = Record<
  string,
  (value: unknown, name: string) => Omit<SchemaProblem, 'path' | 'onKey'> | undefined
>;

/**
 * Turns validator errors into one clear problem per place. Raw validator text is never shown:
 * it names schema internals (`must match "then" schema`) instead of the user's value.
 */
export function translateErrors(
  errors: readonly ErrorObject[],
  root: Schema,
  data: unknown,
  defs: DefMessages = {},
  rootName = 'the value',
): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const seen = new Set<string>();
  const push = (p: SchemaProblem): void => {
    const key = `${p.path.join('/')}|${p.onKey}|${p.code}|${p.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(p);
    }
  };
  const collapsed = new Set<string>();
  for (const err of pickBranches(errors, root, data)) {
    const path = pointerPath(err.instancePath);
    const def = /^#\/\$defs\/([^/]+)\/?(.*)$/.exec(err.schemaPath);
    if (def && def[1] !== undefined && defs[def[1]]) {
      const depth = instanceDepth(def[2] ?? '');
      const at = path.slice(0, Math.max(0, path.length - depth));
      const id = `${def[1]}@${at.join('/')}`;
      const said = defs[def[1]]?.(valueAt(data, at), nameOf(at, rootName));
      if (said) {
        if (!collapsed.has(id)) push({ ...said, path: at, onKey: false });
        collapsed.add(id);
        continue;
      }
    }
    const problem = describe(err, path, root, data, rootName);
    if (problem) push(problem);
  }
  return out;
}

/**
 * Of the alternatives of an `anyOf`/`oneOf`, keep only the errors of the branch whose type
 * fits the value (a list for `[x, y, z]`, a map for `{window, at}`); a value that fits no
 * branch gets one "must be X or Y" message.
 */
function pickBranches(errors: readonly ErrorObject[], root: Schema, data: unknown): ErrorObject[] {
  let kept = errors.filter((e) => e.keyword !== 'if');
  for (const union of errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')) {
    const branches = schemaAt(root, `${union.schemaPath}/x`);
    const list = Array.isArray(branches) ? (branches as Schema[]) : [];
    const actual = jsonType(valueAt(data, pointerPath(union.instancePath)));
    let chosen = list.findIndex((b) => fits(typesOf(b, root), actual));
    const value = valueAt(data, pointerPath(union.instancePath));
    if (chosen >= 0 && list.length > 1 && strangerMap(value, list[chosen], root)) chosen = -1;
    const prefix = `${union.schemaPath}/`;
    const below = (e: ErrorObject): boolean =>
      e.instancePath === union.instancePath || e.instancePath.startsWith(`${union.instancePath}/`);
    const otherRefs = list
      .filter((_, i) => i !== chosen)
      .map((b) => (typeof b.$ref === 'string' ? `${b.$ref}/` : undefined))
      .filter((r): r is string => r !== undefined);
    kept = kept.filter((e) => {
      if (e === union) return false;
      if (e.schemaPath.startsWith(prefix)) return chosen >= 0 && e.schemaPath.startsWith(`${prefix}${chosen}/`);
      const ref = otherRefs.find((r) => e.schemaPath.startsWith(r));
      if (ref === undefined || !below(e)) return true;
      // An error of another branch's definition is about the union's value itself.
      const path = pointerPath(e.instancePath);
      const owner = path.slice(0, Math.max(0, path.length - instanceDepth(e.schemaPath.slice(ref.length))));
      return owner.length !== pointerPath(union.instancePath).length;
    });
    if (chosen < 0) {
      const types = [...new Set(list.flatMap((b) => typesOf(b, root) ?? []))];
      kept.push({ ...union, keyword: 'union', params: { types, branches: list } });
    }
  }
  return kept;
}

/**
 * A map none of whose keys a map alternative knows (`position: { x, y, z }` against
 * `{ window, at }`): the writer meant another form, and each of its keys reported as unknown
 * would hide that.
 */
function strangerMap(value: unknown, branch: Schema | undefined, root: Schema): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || branch === undefined) return false;
  const b = typeof branch.$ref === 'string' ? schemaAt(root, `${branch.$ref}/x`) : branch;
  const known = Object.keys((b.properties as Schema | undefined) ?? {});
  const keys = Object.keys(value);
  return (
    keys.length > 0 && known.length > 0 && b.additionalProperties === false && !keys.some((k) => known.includes(k))
  );
}

function typesOf(branch: Schema, root: Schema): string[] | undefined {
  let b = branch;
  if (b.type === undefined && typeof b.$ref === 'string') b = schemaAt(root, `${b.$ref}/x`);
  if (typeof b.type === 'string') return [b.type];
  if (Array.isArray(b.type)) return b.type.map(String);
  if (Array.isArray(b.enum)) return [...new Set(b.enum.map(jsonType))];
  return undefined;
}

function fits(types: string[] | undefined, actual: string): boolean {
  if (types === undefined) return true;
  return types.includes(actual) || (actual === 'integer' && types.includes('number'));
}

function jsonType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}

function describe(
  err: ErrorObject,
  path: (string | number)[],
  root: Schema,
  data: unknown,
  rootName: string,
): SchemaProblem | undefined {
  const name = nameOf(path, rootName);
  const value = valueAt(data, path);
  const parent = schemaAt(root, err.schemaPath);
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'additionalProperties': {
      const key = String(p.additionalProperty);
      const allowed = Object.keys((parent.properties as Schema | undefined) ?? {});
      return {
        code: 'UNKNOWN_FIELD',
        path: [...path, key],
        onKey: true,
        message: `unknown field \`${key}\`${path.length > 0 ? ` in ${name}` : ''}`,
        hint: suggestion(key, allowed, allowed.length > 0 ? `allowed fields: ${allowed.join(', ')}` : 'remove it'),
      };
    }
    case 'required': {
      const key = String(p.missingProperty);
      return {
        code: 'MISSING_FIELD',
        path,
        onKey: false,
        message: `missing field \`${key}\`${path.length > 0 ? ` in ${name}` : ''}`,
        hint: `add \`${key}:\``,
      };
    }
    case 'type': {
      const example = exampleOf(parent, root);
      const form = example !== undefined ? `write it as \`${keyed(path, rootName, example)}\`` : undefined;
      const general = hintForType(String(p.type));
      return {
        code: 'WRONG_TYPE',
        path,
        onKey: false,
        message: `${name} must be ${article(String(p.type))}, not ${kindOf(value)}`,
        // A map's or a list's example shows its form; text may also need the word about quotes.
        hint:
          form !== undefined && general !== undefined && String(p.type) === 'string'
            ? `${form}; ${general}`
            : (form ?? general),
      };
    }
    case 'union': {
      const types = [...new Set((p.types as unknown[]).filter((t) => t !== undefined).map(String))];
      const branches = (p.branches as Schema[] | undefined) ?? [];
      const forms = branches
        .map((b) => exampleOf(b, root))
        .filter((e): e is string => e !== undefined)
        .map((e) => `\`${keyed(path, rootName, e)}\``);
      const keys = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
      const point = pointFromMap(value);
      const mapBranch = branches
        .map((b) => (typeof b.$ref === 'string' ? schemaAt(root, `${b.$ref}/x`) : b))
        .find((b) => b.type === 'object');
      const mapFields = Object.keys((mapBranch?.properties as Schema | undefined) ?? {})
        .map((k) => `\`${k}\``)
        .join(', ');
      return {
        code: 'WRONG_TYPE',
        path,
        onKey: false,
        message:
          keys.length > 0 && mapFields.length > 0
            ? `${name} must be ${types
                .filter((t) => t !== 'object')
                .map(article)
                .join(' or ')} or a map of ${mapFields}, not a map of ${keys.map((k) => `\`${k}\``).join(', ')}`
            : `${name} must be ${types.map(article).join(' or ')}, not ${kindOf(value)}`,
        hint:
          point !== undefined && branches.some((b) => b.$ref === '#/$defs/vec3')
            ? `write the point as a list [x, y, z]: \`${keyed(path, rootName, point)}\``
            : forms.length > 0
              ? `write it as ${forms.join(' or ')}`
              : undefined,
      };
    }
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).map(String);
      return {
        code: 'BAD_VALUE',
        path,
        onKey: false,
        message: `${name} must be one of ${allowed.join(', ')}, not \`${String(value)}\``,
        hint: suggestion(String(value), allowed, `use one of ${allowed.join(', ')}`),
      };
    }
    case 'const':
      return {
        code: 'BAD_VALUE',
        path,
        onKey: false,
        message: `${name} must be ${JSON.stringify(p.allowedValue)}, not ${JSON.stringify(value)}`,
      };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return {
        code: 'OUT_OF_RANGE',
        path,
        onKey: false,
        message: `${name} must be ${range(parent)}, not ${String(value)}`,
      };
    case 'minItems':
    case 'maxItems': {
      const n = Number(p.limit);
      const word = err.keyword === 'minItems' ? 'at least' : 'at most';
      return {
        code: 'BAD_LENGTH',
        path,
        onKey: false,
        message: `${name} needs ${word} ${n} item${n === 1 ? '' : 's'}, not ${Array.isArray(value) ? value.length : 0}`,
      };
    }
    case 'minLength':
      return { code: 'BAD_VALUE', path, onKey: false, message: `${name} must not be empty` };
    case 'pattern':
      return {
        code: 'BAD_VALUE',
        path,
        onKey: false,
        message: `${name} \`${String(value)}\` is not well formed`,
        hint: typeof parent.description === 'string' ? parent.description : `the allowed form is ${String(p.pattern)}`,
      };
    case 'minProperties': {
      const keys = Object.keys((parent.properties as Schema | undefined) ?? {});
      return {
        code: 'MISSING_FIELD',
        path,
        onKey: false,
        message: `${name} needs one of: ${keys.join(', ')}`,
        hint: `add one of ${keys.join(', ')}`,
      };
    }
    case 'maxProperties': {
      const keys = Object.keys(value !== null && typeof value === 'object' ? value : {});
      return {
        code: 'EXCLUSIVE_FIELDS',
        path: [...path, keys[keys.length - 1] ?? ''],
        onKey: true,
        message: `${name} takes only one of ${keys.map((k) => `\`${k}\``).join(', ')}`,
        hint: 'keep one of them',
      };
    }
    case 'false schema':
      return { code: 'UNKNOWN_FIELD', path, onKey: true, message: `${name} is not allowed here`, hint: 'remove it' };
    case 'propertyNames':
      return {
        code: 'BAD_VALUE',
        path,
        onKey: false,
        message: `${name} has a badly formed key \`${String(p.propertyName)}\``,
      };
    default:
      return { code: 'BAD_VALUE', path, onKey: false, message: `${name} is not valid here (${err.keyword})` };
  }
}

/** How many instance levels a schema path inside a definition descends. */
function instanceDepth(inner: string): number {
  const parts = inner.split('/').filter((s) => s !== '');
  let depth = 0;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === 'items') depth++;
    else if (parts[i] === 'properties' || parts[i] === 'prefixItems') {
      depth++;
      i++;
    }
  }
  return depth;
}

export function pointerPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function schemaAt(root: Schema, schemaPath: string): Schema {
  const parts = schemaPath
    .replace(/^#\/?/, '')
    .split('/')
    .filter((s) => s !== '');
  parts.pop();
  let node: unknown = root;
  for (const part of parts) {
    if (node === null || typeof node !== 'object') return {};
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node !== null && typeof node === 'object' ? (node as Schema) : {};
}

function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let v = data;
  for (const s of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[s] : undefined;
  return v;
}

/** `\`opacity\``, `item 2 of \`nodes\``, or `the value`. */
export function nameOf(path: readonly (string | number)[], rootName = 'the value'): string {
  const last = path[path.length - 1];
  if (last === undefined) return rootName;
  if (typeof last === 'number') {
    const owner = path[path.length - 2];
    return `item ${last + 1}${owner !== undefined && typeof owner === 'string' ? ` of \`${owner}\`` : ''}`;
  }
  return `\`${last}\``;
}

function kindOf(v: unknown): string {
  if (v === null || v === undefined) return 'empty';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a map';
  if (typeof v === 'string') return `the text "${v.length > 40 ? `${v.slice(0, 37)}...` : v}"`;
  return `${typeof v === 'number' ? 'the number' : 'the value'} ${String(v)}`;
}

function article(type: string): string {
  switch (type) {
    case 'object':
      return 'a map';
    case 'array':
      return 'a list';
    case 'integer':
      return 'a whole number';
    case 'null':
      return 'empty';
    default:
      return `a ${type}`;
  }
}

/** `{ x: 56, y: 52, z: 30 }` as the list it meant, `[56, 52, 30]`. */
function pointFromMap(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const keys = Object.keys(v).map((k) => k.toLowerCase());
  if (keys.length !== 3 || !['x', 'y', 'z'].every((k) => keys.includes(k))) return undefined;
  const at = (k: string): unknown => Object.entries(v).find(([key]) => key.toLowerCase() === k)?.[1];
  return `[${['x', 'y', 'z'].map((k) => String(at(k))).join(', ')}]`;
}

/** `key: example` when the value sits under a key, else the example alone. */
function keyed(path: readonly (string | number)[], rootName: string, example: string): string {
  const last = path[path.length - 1] ?? /^`([^`]+)`$/.exec(rootName)?.[1];
  return typeof last === 'string' ? `${last}: ${example}` : example;
}

/**
 * A value of the schema's form, as it is written in a playbook: its own `examples` first,
 * else one built from its parts. Undefined when no sensible value can be made up (free text).
 */
export function exampleOf(schema: Schema, root: Schema, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  const s = typeof schema.$ref === 'string' ? { ...schemaAt(root, `${schema.$ref}/x`), ...schema } : schema;
  if (Array.isArray(s.examples) && s.examples.length > 0) return flow(s.examples[0]);
  if (s.const !== undefined) return flow(s.const);
  if (Array.isArray(s.enum) && s.enum.length > 0) return flow(s.enum[0]);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'boolean':
      return 'true';
    case 'number':
    case 'integer': {
      const lo = typeof s.minimum === 'number' ? s.minimum : undefined;
      const hi = typeof s.maximum === 'number' ? s.maximum : undefined;
      // The middle of a narrow range (an opacity of 0.5), else the smallest useful value.
      if (lo !== undefined && hi !== undefined && hi - lo <= 1) return String((lo + hi) / 2);
      if (lo !== undefined && lo > 0) return String(lo);
      return String(typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 1);
    }
    case 'object': {
      const props = (s.properties as Record<string, Schema> | undefined) ?? {};
      const required = Array.isArray(s.required) ? (s.required as string[]) : [];
      const keys = required.length > 0 ? required : Object.keys(props).slice(0, 1);
      if (keys.length === 0) return undefined;
      const parts = keys.map((k) => `${k}: ${(props[k] && exampleOf(props[k], root, depth + 1)) ?? '…'}`);
      return `{ ${parts.join(', ')} }`;
    }
    case 'array': {
      const item =
        s.items !== null && typeof s.items === 'object' ? exampleOf(s.items as Schema, root, depth + 1) : undefined;
      if (item === undefined) return undefined;
      const n = typeof s.minItems === 'number' && s.minItems > 0 ? s.minItems : 1;
      return `[${new Array<string>(n).fill(item).join(', ')}]`;
    }
    default:
      return undefined;
  }
}

/** A value in YAML's flow style, as a one-line example. */
function flow(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
  if (v !== null && typeof v === 'object')
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${k}: ${flow(x)}`)
      .join(', ')} }`;
  return String(v);
}

function hintForType(type: string): string | undefined {
  if (type === 'object') return 'write it as `key: value` lines or `{ key: value }`';
  if (type === 'array') return 'write it as `[a, b]` or as `- a` lines';
  if (type === 'string') return 'put text in quotes if YAML reads it as something else';
  return undefined;
}

function range(s: Schema): string {
  const lo = s.minimum ?? s.exclusiveMinimum;
  const hi = s.maximum ?? s.exclusiveMaximum;
  const loText = s.exclusiveMinimum !== undefined ? `greater than ${String(lo)}` : `at least ${String(lo)}`;
  const hiText = s.exclusiveMaximum !== undefined ? `less than ${String(hi)}` : `at most ${String(hi)}`;
  if (lo !== undefined && hi !== undefined) {
    return s.minimum !== undefined && s.maximum !== undefined
      ? `between ${String(lo)} and ${String(hi)}`
      : `${loText} and ${hiText}`;
  }
  return lo !== undefined ? loText : hiText;
}
