import { readFileSync } from 'node:fs';
import { packageFile } from '../package-files.js';
import { translateErrors } from '../playbook/schema-errors.js';
import { validators } from './layout-validator.generated.js';

export interface LayoutProblem {
  path: (string | number)[];
  message: string;
  hint?: string;
}

let layoutSchema: Record<string, unknown> | undefined;

function schema(): Record<string, unknown> {
  // Read only when a playbook has a layout; messages need the schema's field lists.
  layoutSchema ??= JSON.parse(readFileSync(packageFile('schemas/layout.schema.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  return layoutSchema;
}

/**
 * Checks a layout document as the workbench would before applying it: its schema, unique
 * cell ids and, when `groups` is given, that it declares every group a cell uses.
 */
export function checkLayoutDocument(doc: unknown): { problems: LayoutProblem[]; cells: string[] } {
  const problems: LayoutProblem[] = [];
  const validateLayout = validators.layout;
  if (!validateLayout(doc)) {
    for (const p of translateErrors(validateLayout.errors ?? [], schema(), doc))
      problems.push({ path: p.path, message: p.message, ...(p.hint ? { hint: p.hint } : {}) });
    return { problems, cells: [] };
  }
  const d = doc as { groups?: Record<string, unknown>; root: Split };
  const cells: string[] = [];
  const seen = new Set<string>();
  const walk = (node: Split | Cell, path: (string | number)[]): void => {
    if (node.type === 'window') {
      if (seen.has(node.id))
        problems.push({
          path: [...path, 'id'],
          message: `duplicate cell id \`${node.id}\``,
          hint: 'every cell needs its own id',
        });
      seen.add(node.id);
      cells.push(node.id);
      const group = node.links.selection;
      if (d.groups && !(group in d.groups)) {
        problems.push({
          path: [...path, 'links', 'selection'],
          message: `group \`${group}\` is not declared in \`groups\``,
          hint: `add \`"${group}": { "select_all": true }\` to groups, or leave groups out`,
        });
      }
      return;
    }
    node.children.forEach((child, i) => walk(child, [...path, 'children', i]));
  };
  walk(d.root, ['root']);
  return { problems, cells };
}

interface Split {
  type: 'split';
  children: (Split | Cell)[];
}

interface Cell {
  type: 'window';
  id: string;
  links: { selection: string };
}
