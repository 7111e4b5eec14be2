import { createHash } from 'node:crypto';

export interface Shard {
  /** 1-based index of this shard. */
  index: number;
  count: number;
}

/**
 * Parses `i/n` (1-based, as CI matrices count) and the Kubernetes Indexed Job form: with
 * `env:NAME/n` or when `i` is empty and JOB_COMPLETION_INDEX is set, the 0-based completion
 * index from the environment is used, so a Job needs no shell wrapper. `slurm` takes both
 * from the task of a Slurm job array.
 */
export function parseShard(text: string, env: NodeJS.ProcessEnv = process.env): Shard {
  if (text.trim() === 'slurm') return slurmShard(env);
  const m = /^\s*(?:env:([A-Za-z_][A-Za-z0-9_]*)|(\d+))?\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new Error(`invalid shard '${text}': expected i/n (e.g. 2/4), env:JOB_COMPLETION_INDEX/n or slurm`);
  const count = Number(m[3]);
  let index: number;
  if (m[2] !== undefined) {
    index = Number(m[2]);
  } else {
    const name = m[1] ?? 'JOB_COMPLETION_INDEX';
    const raw = env[name];
    if (raw === undefined || !/^\d+$/.test(raw)) {
      throw new Error(
        `invalid shard '${text}': environment variable ${name} must hold a 0-based index, got ${raw === undefined ? 'nothing' : `'${raw}'`}`,
      );
    }
    index = Number(raw) + 1;
  }
  if (count < 1 || index < 1 || index > count) {
    throw new Error(`invalid shard '${text}': the index must be between 1 and ${count}`);
  }
  return { index, count };
}

/**
 * The shard of a Slurm array task. An array may start at any index (`--array=0-3`,
 * `--array=5-8`), so the shard counts from the array's first task; a stepped or sparse array
 * (`--array=1-7:2`) has no shard for every task id and is refused rather than guessed at.
 */
function slurmShard(env: NodeJS.ProcessEnv): Shard {
  const names = ['SLURM_ARRAY_TASK_ID', 'SLURM_ARRAY_TASK_MIN', 'SLURM_ARRAY_TASK_MAX', 'SLURM_ARRAY_TASK_COUNT'];
  const unset = names.filter((n) => env[n] === undefined || env[n] === '');
  if (unset.length > 0)
    throw new Error(
      `invalid shard 'slurm': ${unset.join(', ')} ${unset.length === 1 ? 'is' : 'are'} not set; --shard slurm runs inside a task of a Slurm job array (sbatch --array=1-N)`,
    );
  const [id, min, max, count] = names.map((n) => {
    const raw = env[n]!;
    if (!/^\d+$/.test(raw)) throw new Error(`invalid shard 'slurm': ${n} must be a whole number, got '${raw}'`);
    return Number(raw);
  }) as [number, number, number, number];
  if (count < 1 || max - min + 1 !== count)
    throw new Error(
      `invalid shard 'slurm': the array runs ${count} tasks from ${min} to ${max}; give it consecutive task ids (sbatch --array=${min}-${min + count - 1}), one per shard`,
    );
  if (id < min || id > max)
    throw new Error(`invalid shard 'slurm': SLURM_ARRAY_TASK_ID ${id} is outside the array ${min}-${max}`);
  return { index: id - min + 1, count };
}

/**
 * The ids that belong to `shard`. Ids are ordered by a hash of the id, not by position, so
 * every machine computes the same split from the same cohort and neighbouring studies (often
 * similar in size) spread over the shards; dealing them out in turn keeps shards within one
 * study of each other in size.
 */
export function selectShard<T>(items: readonly T[], idOf: (item: T) => string, shard: Shard): T[] {
  const keyed = items.map((item) => ({
    item,
    key: createHash('sha256').update(idOf(item)).digest('hex'),
    id: idOf(item),
  }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const chosen = new Set<T>();
  keyed.forEach((k, i) => {
    if (i % shard.count === shard.index - 1) chosen.add(k.item);
  });
  // Keep the cohort's own order inside a shard so reports read naturally.
  return items.filter((item) => chosen.has(item));
}
