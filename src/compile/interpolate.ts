import { isAbsolute, resolve as resolvePath } from 'node:path';
import type { DiagnosticCode } from '../diagnostics/diagnostic.js';
import { suggestion } from '../diagnostics/did-you-mean.js';
import type { YNode, YScalar } from '../playbook/tree.js';

export type VarValue = string | number | boolean;

/** The value of a variable whose own definition had a problem; uses of it are not errors again. */
export const BROKEN: unique symbol = Symbol('broken variable');

/** What `${...}` can see at one place of a playbook. */
export interface Scope {
  vars: ReadonlyMap<string, VarValue | typeof BROKEN>;
  /** The foreach binding of the current case; `fields: undefined` when the studies are not known yet. */
  study?: { as: string; fields: Readonly<Record<string, unknown>> | undefined };
  env: NodeJS.ProcessEnv;
  /** Variables whose value was typed in a shell (`--var`): a path in them starts at the working folder. */
  shell?: ReadonlySet<string>;
}

export interface TemplateProblem {
  code: DiagnosticCode;
  message: string;
  hint?: string;
  /** Set when the cause was reported already (a variable that failed to expand): skip, say nothing. */
  silent?: boolean;
  /** Offset and length inside the text. */
  offset: number;
  length: number;
}

const ENV = /^env\.([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;
const NAME = /^([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_-]*))?$/;

/**
 * Expands `${name}`, `${study.field}`, `${env.NAME}` and `${env.NAME:-default}`; `$${` is a
 * literal `${`. A text that is exactly one `${...}` takes the variable's own type, so a
 * number variable stays a number. Written by hand: the syntax is small and every problem
 * needs its exact offset.
 */
export function expand(text: string, scope: Scope): { value: unknown; problems: TemplateProblem[] } {
  if (!text.includes('${')) return { value: text, problems: [] };
  const problems: TemplateProblem[] = [];
  let out = '';
  let whole: unknown;
  let pieces = 0;
  let i = 0;
  while (i < text.length) {
    const at = text.indexOf('${', i);
    if (at < 0) {
      out += text.slice(i);
      pieces++;
      break;
    }
    if (at > 0 && text[at - 1] === '$') {
      out += `${text.slice(i, at - 1)}\${`;
      pieces++;
      i = at + 2;
      continue;
    }
    if (at > i) {
      out += text.slice(i, at);
      pieces++;
    }
    const close = text.indexOf('}', at + 2);
    if (close < 0) {
      problems.push({
        code: 'BAD_TEMPLATE',
        message: 'unterminated `${`',
        hint: 'close it with `}`, or write `$${` for a literal `${`',
        offset: at,
        length: text.length - at,
      });
      return { value: text, problems };
    }
    const expr = text.slice(at + 2, close).trim();
    // A value that starts the text and is followed by a separator is the first folder of a path.
    const leading = at === 0 ? (/^[\\/]/.test(text.slice(close + 1)) ? 'folder' : 'start') : 'inside';
    const resolved = resolve(expr, scope, leading);
    if ('problem' in resolved) {
      problems.push({ ...resolved.problem, offset: at, length: close + 1 - at });
    } else {
      whole = resolved.value;
      out += String(resolved.value);
    }
    pieces++;
    i = close + 1;
  }
  if (problems.length > 0) return { value: text, problems };
  const single = pieces === 1 && /^\$\{[^}]*\}$/.test(text);
  return { value: single ? whole : out, problems };
}

/**
 * A path typed in a shell (an environment variable, a `--var`) means the folder the shell is in,
 * not the playbook's: a relative one is made absolute from the working directory. Only values
 * that look like paths are touched (a separator, or a leading `.`, and no URL scheme), so names,
 * numbers and URLs pass; `folder` says the value is known to be a path's first folder
 * (`${data}/studies.csv`), so a bare name such as `coh` is one too.
 */
export function fromWorkingDir(value: string, cwd: string = process.cwd(), folder = false): string {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value)) return value;
  const looksLikePath =
    folder ||
    value === '.' ||
    value === '..' ||
    value.startsWith('./') ||
    value.startsWith('../') ||
    /[\\/]/.test(value);
  return looksLikePath && value !== '' && !isAbsolute(value) ? resolvePath(cwd, value) : value;
}

function resolve(
  expr: string,
  scope: Scope,
  leading: 'folder' | 'start' | 'inside',
): { value: unknown } | { problem: Omit<TemplateProblem, 'offset' | 'length'> } {
  const env = ENV.exec(expr);
  if (env) {
    const name = env[1] ?? '';
    const value = scope.env[name];
    // Only where a path would start: `${env.DATA}/ct.nrrd`, not `study-${env.N}`.
    if (value !== undefined && value !== '')
      return { value: leading === 'inside' ? value : fromWorkingDir(value, undefined, leading === 'folder') };
    if (env[2] !== undefined) return { value: env[2] };
    return {
      problem: {
        code: 'UNSET_ENV',
        message: `environment variable \`${name}\` is not set`,
        hint: `set it, or give a default: \${env.${name}:-value}`,
      },
    };
  }
  const m = NAME.exec(expr);
  if (!m) {
    return {
      problem: {
        code: 'BAD_TEMPLATE',
        message: `\`\${${expr}}\` is not a variable reference`,
        hint: 'write ${name}, ${study.field}, ${env.NAME} or ${env.NAME:-default}',
      },
    };
  }
  const name = m[1] ?? '';
  const field = m[2];
  if (scope.study && name === scope.study.as) {
    const fields = scope.study.fields;
    if (field === undefined) {
      return {
        problem: {
          code: 'UNKNOWN_VARIABLE',
          message: `\`\${${name}}\` names the whole study`,
          hint: `use one of its fields, e.g. \${${name}.name}`,
        },
      };
    }
    if (fields === undefined) return { value: `<${name}.${field}>` };
    if (Object.prototype.hasOwnProperty.call(fields, field)) return { value: fields[field] };
    return {
      problem: {
        code: 'UNKNOWN_VARIABLE',
        message: `the study has no field \`${field}\``,
        hint: suggestion(field, Object.keys(fields), `its fields are ${Object.keys(fields).join(', ')}`),
      },
    };
  }
  if (field === undefined && scope.vars.has(name)) {
    const value = scope.vars.get(name);
    if (value === BROKEN)
      return { problem: { code: 'UNKNOWN_VARIABLE', message: `\`${name}\` could not be expanded`, silent: true } };
    if (leading === 'folder' && typeof value === 'string' && scope.shell?.has(name))
      return { value: fromWorkingDir(value, undefined, true) };
    return { value };
  }
  const known = [...scope.vars.keys(), ...(scope.study ? [`${scope.study.as}.name`] : [])];
  return {
    problem: {
      code: 'UNKNOWN_VARIABLE',
      message: `unknown variable \`${expr}\``,
      hint: suggestion(
        expr,
        known,
        known.length > 0
          ? `define it under \`vars:\` or pass --var ${name}=...; known: ${known.join(', ')}`
          : `define it under \`vars:\` or pass --var ${name}=...`,
      ),
    },
  };
}

/** Expands every string of a parsed value; problems are passed on with the scalar they are in. */
export function expandNode(
  node: YNode,
  scope: Scope,
  onProblem: (at: YScalar, problem: TemplateProblem) => void,
): unknown {
  switch (node.type) {
    case 'scalar': {
      if (typeof node.value !== 'string') return node.value;
      const r = expand(node.value, scope);
      for (const p of r.problems) onProblem(node, p);
      return r.value;
    }
    case 'seq':
      return node.items.map((item) => expandNode(item, scope, onProblem));
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const e of node.entries) out[e.key] = expandNode(e.value, scope, onProblem);
      return out;
    }
  }
}
