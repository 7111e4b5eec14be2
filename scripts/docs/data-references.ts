// docs/configuration.md from schemas/config.schema.json and docs/report-format.md from
// schemas/report.schema.json: the published schemas, field by field.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  cell,
  code,
  description,
  fieldRows,
  table,
  typeText,
  type Row,
  type Schema,
  type SchemaText,
} from './schema-markdown.js';

function readSchema(name: string): Schema {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`../../schemas/${name}`, import.meta.url)), 'utf8')) as Schema;
}

/** A property with the definition it refers to written in place (its own description first). */
function inline(s: Schema, defs: Record<string, Schema>): Schema {
  const name = typeof s.$ref === 'string' ? s.$ref.replace(/^#\/(\$defs|definitions)\//, '') : undefined;
  if (name === undefined) return s;
  const { $ref: _ref, ...own } = s;
  return { ...defs[name], ...own };
}

export function configParts(): Record<string, string> {
  const schema = readSchema('config.schema.json');
  const defs = (schema.$defs ?? {}) as Record<string, Schema>;
  const text: SchemaText = { defs, anchor: (name) => `#${name}` };
  const props = schema.properties as Record<string, Schema>;
  const { projects, ...settings } = props;
  const inlined = Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, inline(v, defs)]));
  const project = (projects!.additionalProperties ?? {}) as Schema;
  return {
    intro: String(schema.description ?? ''),
    settings: table(fieldRows({ properties: inlined }, text)),
    projects: [
      description(projects!, text),
      `A project's name: ${typeText((projects!.propertyNames ?? {}) as Schema, text)}. ${description(project, text)} It takes the settings ${Object.keys(
        (project.properties ?? {}) as object,
      )
        .map(code)
        .join(', ')}.`,
    ].join('\n\n'),
  };
}

export function reportParts(): Record<string, string> {
  const schema = readSchema('report.schema.json');
  const defs = (schema.definitions ?? {}) as Record<string, Schema>;
  const text: SchemaText = { defs, anchor: (name) => `#${name}` };
  const present = (rows: Row[]): string =>
    table(
      rows.map((r) => ({ ...r, default: r.default === 'required' ? 'always' : 'when it applies' })),
      'present',
      'what it holds',
    );
  const sections = Object.entries(defs).map(([name, def]) => {
    const body =
      def.properties !== undefined
        ? present(fieldRows(def, text))
        : `${cell(typeText({ ...def, description: undefined }, text))}.`;
    return [`### \`${name}\``, description(def, text), body].filter(Boolean).join('\n\n');
  });
  return {
    intro: String(schema.description ?? ''),
    top: present(fieldRows(schema, text)),
    definitions: sections.join('\n\n'),
  };
}
