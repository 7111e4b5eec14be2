// docs/playbook.md from the step registry and the playbook's top-level schema: every step kind
// with its fields, and the top-level keys, written around the hand-written parts of
// scripts/docs/templates/playbook.md.
import { topSchema } from '../../src/compile/schemas.js';
import { postRunStages } from '../../src/steps/post-run/stages.js';
import { registry } from '../../src/steps/registry.js';
import { SCHEMA_DEFS } from '../../src/steps/schema-defs.js';
import { STEP_KINDS, type StepKind } from '../../src/steps/step-definition.js';
import {
  code,
  description,
  fieldRows,
  objectRules,
  table,
  typeText,
  type Schema,
  type SchemaText,
} from './schema-markdown.js';
import { EXAMPLE_FILES, examplePlaybook } from './step-examples.js';

const text: SchemaText = { defs: SCHEMA_DEFS, anchor: (name) => `#${name}-value` };

/** The parts of the template to fill, by marker. */
export function playbookParts(): Record<string, string> {
  const top = topSchema() as Schema;
  const props = top.properties as Record<string, Schema>;
  const { steps: _steps, foreach, ...rest } = props;
  const postRun = new Set<string>(postRunStages.map((s) => s.key));
  const topOnly = Object.fromEntries(Object.entries(rest).filter(([k]) => !postRun.has(k)));
  return {
    'top-level': table(
      fieldRows({ ...top, properties: { ...topOnly, steps: props.steps } }, text).map((r) =>
        r.field === 'steps' ? { ...r, type: 'list of [steps](#steps)' } : r,
      ),
    ),
    foreach: [table(fieldRows(foreach!, text)), ...objectRules(foreach!)].join('\n\n'),
    'post-run': postRunStages
      .map((stage) =>
        [`### \`${stage.key}\``, description(stage.schema, text), table(fieldRows(stage.schema, text))].join('\n\n'),
      )
      .join('\n\n'),
    'step-index': [
      '| step | what it does |',
      '| --- | --- |',
      ...STEP_KINDS.map((k) => `| [\`${k}\`](#${k}) | ${registry[k].summary} |`),
    ].join('\n'),
    steps: STEP_KINDS.map(stepSection).join('\n\n'),
    shared: Object.entries(SCHEMA_DEFS)
      .map(([name, def]) => sharedSection(name, def))
      .join('\n\n'),
  };
}

function stepSection(kind: StepKind): string {
  const def = registry[kind];
  const schema = def.schema as Schema;
  const parts = [`### \`${kind}\``, def.summary];
  const forms = (schema.anyOf ?? [schema]) as Schema[];
  const notes: string[] = [];
  if (def.bare) notes.push(`Written alone as \`- ${kind}\` when it needs no fields.`);
  if (def.soft)
    notes.push(
      'A check: when it fails, the failure is recorded and the case goes on, so one run shows every failing image; an error still ends the case.',
    );
  const withFields = forms.some((f) => f.properties !== undefined && Object.keys(f.properties as object).length > 0);
  for (const form of forms) {
    if (form.type === 'null') continue;
    if (form.properties !== undefined) {
      if (Object.keys(form.properties as object).length > 0) parts.push(table(fieldRows(form, text)));
      notes.push(...objectRules(form));
    } else {
      notes.push(`Its value ${withFields ? 'may also be' : 'is'} ${typeText(form, text)}.`);
    }
  }
  parts.push(...notes);
  parts.push('Example:', fence('yaml', examplePlaybook(kind)));
  for (const [name, body] of Object.entries(EXAMPLE_FILES[kind] ?? {}))
    parts.push(`with \`${name}\` beside it:`, fence('yaml', `# file: ${name}\n${body}`));
  return parts.join('\n\n');
}

function sharedSection(name: string, def: Schema): string {
  const examples = Array.isArray(def.examples) ? `Examples: ${def.examples.map(code).join(', ')}.` : '';
  const fields = def.properties !== undefined ? table(fieldRows(def, text)) : '';
  return [
    `### \`${name}\` value`,
    [
      description(def, text),
      def.properties === undefined ? `Type: ${typeText({ ...def, description: undefined }, text)}.` : '',
      examples,
    ]
      .filter(Boolean)
      .join(' '),
    fields,
  ]
    .filter(Boolean)
    .join('\n\n');
}

export function fence(lang: string, body: string): string {
  return `\`\`\`${lang}\n${body.replace(/\n$/, '')}\n\`\`\``;
}
