import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { VAR_NAME } from './schemas.js';

const NAME = new RegExp(VAR_NAME);

/** `--var name=value` arguments as a map; a malformed one is a diagnostic without a place. */
export function parseVarAssignments(list: readonly string[]): {
  vars: Record<string, string>;
  diagnostics: Diagnostic[];
} {
  const vars: Record<string, string> = {};
  const diagnostics: Diagnostic[] = [];
  for (const item of list) {
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq);
    if (eq < 0 || !NAME.test(name)) {
      diagnostics.push({
        code: 'BAD_VAR',
        message: `\`--var ${item}\` is not of the form name=value`,
        hint: 'a name is a letter or `_` followed by letters, digits or `_`, e.g. --var out=figures',
      });
      continue;
    }
    vars[name] = item.slice(eq + 1);
  }
  return { vars, diagnostics };
}
