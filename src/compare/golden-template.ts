import { basename, extname, isAbsolute, resolve } from 'node:path';

/**
 * Where goldens live when a configuration names a template, such as
 * `goldens/{project}/{engine_version}/{playbook}/{name}.png`: goldens of different engines or
 * platforms then sit side by side instead of overwriting each other.
 */
export interface GoldenTemplate {
  /** The template, with `{playbook}`, `{name}`, `{project}`, `{engine_version}` and `{platform}`. */
  readonly pattern: string;
  /** The folder a relative result is read from: the configuration file's. */
  readonly base: string;
  /** The project the run uses (`--project`); `default` without one. */
  readonly project: string;
}

export const GOLDEN_PLACEHOLDERS = ['playbook', 'name', 'project', 'engine_version', 'platform'] as const;

export interface GoldenFacts {
  /** The playbook's path. */
  playbook: string;
  /** The golden as the step names it. */
  golden: string;
  /** The workbench's engine version. */
  engineVersion: string;
}

/** The golden's path under the template. A value becomes one safe path segment. */
export function goldenPath(template: GoldenTemplate, facts: GoldenFacts): string {
  const values: Record<(typeof GOLDEN_PLACEHOLDERS)[number], string> = {
    playbook: basename(facts.playbook, extname(facts.playbook)),
    name: basename(facts.golden, extname(facts.golden)),
    project: template.project,
    engine_version: facts.engineVersion || 'unknown',
    platform: process.platform,
  };
  const filled = template.pattern.replace(/\{([a-z_]+)\}/g, (whole, key: string) =>
    key in values ? segment(values[key as keyof typeof values]) : whole,
  );
  const withExt = extname(filled) === '' ? `${filled}.png` : filled;
  return isAbsolute(withExt) ? withExt : resolve(template.base, withExt);
}

/** A value as a file name: no separators and no `..`, whatever a workbench reports. */
function segment(value: string): string {
  const safe = value.replace(/[^A-Za-z0-9._+-]/g, '_');
  return safe === '' || /^\.+$/.test(safe) ? '_' : safe;
}
