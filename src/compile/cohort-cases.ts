import type { PlanCase } from './plan.js';

/** What compiling one case gives, beside the name and study it is known by before. */
export type CaseBody = Pick<PlanCase, 'inputs' | 'outputs' | 'steps'>;

/** The plan's compile of a case, under a key JSON, spreading and `Object.keys` leave alone. */
const COMPILE = Symbol('compile a case');

type OnDemand = PlanCase & { [COMPILE]: (c: PlanCase) => CaseBody };

const BODY_KEYS = ['inputs', 'outputs', 'steps'] as const;

/**
 * One getter per field for every case: objects with the same accessors share their shape,
 * where a getter of their own made each case an object of its own kind (about 2 KB each).
 */
const GETTERS = Object.fromEntries(
  BODY_KEYS.map((key) => [
    key,
    function (this: OnDemand) {
      return this[COMPILE](this)[key];
    },
  ]),
) as Record<(typeof BODY_KEYS)[number], () => unknown>;

/**
 * A cohort case whose steps are compiled when they are read. A cohort of thousands of studies
 * held every case's compiled steps for the whole run, and the compile's garbage set how large
 * the heap grew; now a run holds the name and study fields of each case, and the steps of the
 * cases running. Its `inputs`, `outputs` and `steps` read like those of any case (so a plan
 * prints and serialises the same); each read compiles the case anew, so a run compiles a case
 * once with `compiledCase` and keeps that while it runs. `compile`, one for the plan, throws a
 * PlaybookError should the case no longer compile (a data file removed since it was checked).
 */
export function caseOnDemand(head: Omit<PlanCase, keyof CaseBody>, compile: (c: PlanCase) => CaseBody): PlanCase {
  const c = { ...head };
  Object.defineProperty(c, COMPILE, { value: compile });
  for (const key of BODY_KEYS) Object.defineProperty(c, key, { enumerable: true, get: GETTERS[key] });
  return c as PlanCase;
}

/** Whether the case's steps are compiled only when read (a case of a cohort). */
export function compiledOnDemand(c: PlanCase): boolean {
  return (c as Partial<OnDemand>)[COMPILE] !== undefined;
}

/** The case as plain data, compiled once: what a run holds of a case while it runs. */
export function compiledCase(c: PlanCase): PlanCase {
  const compile = (c as Partial<OnDemand>)[COMPILE];
  if (compile === undefined) return c;
  const { id, name, study, retrieve } = c;
  return { id, name, ...(study ? { study } : {}), ...(retrieve ? { retrieve } : {}), ...compile(c) };
}
