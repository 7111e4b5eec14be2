/**
 * Scripted faults, for testing what talks to the workbench: latency, 503 and 429 answers,
 * connections dropped before or after the request was applied, and a stall that never answers.
 * A seeded generator makes every run with the same seed and request sequence fault alike.
 */
import { mulberry32 } from './random.js';

export type FaultKind = 'latency' | '503' | '429' | 'drop-before' | 'drop-after' | 'stall';
export const FAULT_KINDS: readonly FaultKind[] = ['latency', '503', '429', 'drop-before', 'drop-after', 'stall'];

export interface FaultRule {
  kind: FaultKind;
  /** HTTP method the rule applies to; any when absent. */
  method?: string;
  /** Path pattern: `*` stands for any characters but `/`, `**` for any characters; any path when absent. */
  path?: string;
  /** Fire on the n-th matching request only (1-based). */
  nth?: number;
  /** Probability of firing on each matching request (0..1); 1 unless `nth` is given. */
  rate?: number;
  /** latency: delay in ms, drawn evenly from [min, max]. */
  latencyMs?: [number, number];
  /** 429: the Retry-After seconds; 1 by default. */
  retryAfter?: number;
}

export interface FaultSpec {
  seed?: number;
  rules: FaultRule[];
}

/** What happens to one request; `kind` absent means it is answered normally (after the latency). */
export interface FaultDecision {
  latencyMs: number;
  kind?: Exclude<FaultKind, 'latency'>;
  retryAfter?: number;
}

export class FaultSpecError extends Error {
  override name = 'FaultSpecError';
}

export const FAULT_SPEC_HELP = `Fault spec: items separated by ';'
  seed=N                     seed of the generator (same seed + same requests = same faults)
  KIND[=ARG][@TRIGGER]       KIND is latency, 503, 429, drop-before, drop-after or stall
    latency=MS or =MIN..MAX  delay in ms (evenly drawn from the range)
    429=S                    Retry-After seconds (default 1)
    drop-before              connection closed before the request is applied
    drop-after               request applied, then the connection is closed without an answer
    stall                    the request is never answered
  TRIGGER (space separated, every request when absent):
    METHOD                   GET, POST, ... (any when absent)
    PATH                     /api/v1/... with * (one segment part) and ** (anything)
    #N                       only the N-th matching request (also attached: PATH#N)
    rate=R                   each matching request with probability R (0..1)
  example: seed=7;503@POST /api/v1/datastorage/nodes#2;drop-after@rate=0.1;latency=20..50`;

const number = (text: string): number | undefined => (/^\d+(\.\d+)?$/.test(text) ? Number(text) : undefined);

/** Parses a fault spec string (see `FAULT_SPEC_HELP`); throws `FaultSpecError` saying which item is wrong. */
export function parseFaults(spec: string): FaultSpec {
  const out: FaultSpec = { rules: [] };
  for (const raw of spec.split(';')) {
    const item = raw.trim();
    if (item === '') continue;
    const bad = (why: string): never => {
      throw new FaultSpecError(`fault item '${item}': ${why}`);
    };
    const seed = /^seed=(\d+)$/.exec(item);
    if (seed) {
      out.seed = Number(seed[1]);
      continue;
    }
    const at = item.indexOf('@');
    const head = at < 0 ? item : item.slice(0, at);
    const [kind, arg] = head.split('=', 2) as [string, string | undefined];
    if (!(FAULT_KINDS as readonly string[]).includes(kind))
      bad(`unknown kind '${kind}'; use ${FAULT_KINDS.join(', ')} or seed=N`);
    const rule: FaultRule = { kind: kind as FaultKind };
    if (kind === 'latency') {
      const m =
        /^(\d+)(?:\.\.(\d+))?$/.exec(arg ?? '') ?? bad('latency needs a delay in ms: latency=MS or latency=MIN..MAX');
      rule.latencyMs = [Number(m[1]), Number(m[2] ?? m[1])];
    } else if (kind === '429' && arg !== undefined) {
      rule.retryAfter = number(arg) ?? bad('429=S needs the Retry-After seconds');
    } else if (arg !== undefined) {
      bad(`${kind} takes no '=' value`);
    }
    if (at >= 0) parseTrigger(item.slice(at + 1), rule, bad);
    checkRule(rule, `fault item '${item}'`);
    out.rules.push(rule);
  }
  return out;
}

function parseTrigger(text: string, rule: FaultRule, bad: (why: string) => never): void {
  const tokens = text.trim().split(/\s+/).filter(Boolean);
  if (tokens.length === 0) bad("nothing after '@'; give a method, a path, #N or rate=R");
  for (const token of tokens) {
    const rate = /^rate=(.*)$/.exec(token);
    if (rate) rule.rate = number(rate[1]!) ?? bad(`rate must be a number from 0 to 1, got '${rate[1]}'`);
    else if (/^#\d+$/.test(token)) rule.nth = Number(token.slice(1));
    else if (token.startsWith('/')) {
      const nth = /#(\d+)$/.exec(token);
      rule.path = nth ? token.slice(0, nth.index) : token;
      if (nth) rule.nth = Number(nth[1]);
    } else if (token === '*') delete rule.method;
    else if (/^[A-Z]+$/.test(token)) rule.method = token;
    else bad(`'${token}' is not a method, a /path, #N or rate=R`);
  }
}

/** Checks a spec given as an object (or parsed from text); throws `FaultSpecError`. */
export function checkFaults(spec: FaultSpec): FaultSpec {
  if (typeof spec !== 'object' || spec === null || !Array.isArray(spec.rules))
    throw new FaultSpecError('faults must be {seed?, rules: [...]}');
  if (spec.seed !== undefined && !Number.isSafeInteger(spec.seed))
    throw new FaultSpecError(`seed must be a whole number, got ${spec.seed}`);
  spec.rules.forEach((rule, i) => checkRule(rule, `fault rule ${i + 1} (${rule.kind})`));
  return spec;
}

function checkRule(rule: FaultRule, where: string): void {
  const bad = (why: string): never => {
    throw new FaultSpecError(`${where}: ${why}`);
  };
  if (!(FAULT_KINDS as readonly string[]).includes(rule.kind)) bad(`unknown kind; use ${FAULT_KINDS.join(', ')}`);
  if (rule.rate !== undefined && !(rule.rate >= 0 && rule.rate <= 1)) bad(`rate must be from 0 to 1, got ${rule.rate}`);
  if (rule.nth !== undefined && !(Number.isSafeInteger(rule.nth) && rule.nth >= 1))
    bad(`#N counts from 1, got ${rule.nth}`);
  if (rule.nth !== undefined && rule.rate !== undefined) bad('give either #N or rate=R, not both');
  if (rule.path !== undefined && !rule.path.startsWith('/')) bad(`the path must start with '/', got '${rule.path}'`);
  if (rule.kind === 'latency') {
    const [min, max] = rule.latencyMs ?? [NaN, NaN];
    if (!(min >= 0 && max >= min)) bad('latencyMs must be [min, max] with 0 <= min <= max');
  } else if (rule.latencyMs !== undefined) bad('latencyMs only applies to latency rules');
  if (rule.retryAfter !== undefined && !(rule.retryAfter >= 0)) bad('retryAfter must be seconds >= 0');
}

function pathRegExp(pattern: string): RegExp {
  const body = pattern
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${body}$`);
}

export class FaultInjector {
  private readonly random: () => number;
  private readonly rules: Array<FaultRule & { pattern: RegExp | undefined; seen: number }>;

  constructor(spec: FaultSpec) {
    this.random = mulberry32(spec.seed ?? 1);
    this.rules = spec.rules.map((r) => ({
      ...r,
      pattern: r.path === undefined ? undefined : pathRegExp(r.path),
      seen: 0,
    }));
  }

  get active(): boolean {
    return this.rules.length > 0;
  }

  /** Decides the faults of one request; latencies add up, the first other rule that fires wins. */
  decide(method: string, path: string): FaultDecision {
    const out: FaultDecision = { latencyMs: 0 };
    for (const rule of this.rules) {
      if (rule.method !== undefined && rule.method !== method.toUpperCase()) continue;
      if (rule.pattern && !rule.pattern.test(path)) continue;
      rule.seen++;
      const fires =
        rule.nth !== undefined ? rule.seen === rule.nth : (rule.rate ?? 1) >= 1 || this.random() < (rule.rate ?? 1);
      if (!fires) continue;
      if (rule.kind === 'latency') {
        const [min, max] = rule.latencyMs!;
        out.latencyMs += min === max ? min : Math.round(min + this.random() * (max - min));
      } else if (out.kind === undefined) {
        out.kind = rule.kind;
        if (rule.kind === '429') out.retryAfter = rule.retryAfter ?? 1;
      }
    }
    return out;
  }
}
