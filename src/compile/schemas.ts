import { EXPECT_IMAGE_DEFAULTS } from '../steps/expect-image.js';
import { postRunStages } from '../steps/post-run/stages.js';
import { registry } from '../steps/registry.js';
import { SCHEMA_DEFS, object } from '../steps/schema-defs.js';
import { STEP_KINDS, type JsonSchema, type StepKind } from '../steps/step-definition.js';
import { WHERE_SCHEMA } from '../volume/dicom/where.js';

export const SCHEMA_ID = 'https://wbplay.dev/schemas/playbook.schema.json';

/** A variable name: also the first word of `${name}` and `${name.field}`. */
export const VAR_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';

/** The playbook's top level. `steps` items are checked one by one after their kind is known. */
export function topSchema(stepItems: JsonSchema = {}): JsonSchema {
  return object(
    {
      version: { description: 'Playbook format version.', const: 1 },
      name: { description: 'Shown in plans and reports; default: the file name.', type: 'string', minLength: 1 },
      description: { description: 'What the playbook is for; shown in plans.', type: 'string' },
      tags: {
        description: 'Select playbooks with `--tag`.',
        type: 'array',
        items: {
          description: 'A tag: letters, digits, `_`, `.`, `:` and `-`.',
          type: 'string',
          pattern: '^[A-Za-z0-9_.:-]+$',
        },
      },
      workbench: object(
        {
          url: {
            description: 'Workbench base URL, e.g. ${env.WORKBENCH_URL}; none: the embedded reference workbench.',
            type: 'string',
          },
          token: { description: 'API token; write ${env.NAME}, never the token itself.', type: 'string' },
        },
        [],
        { description: 'The workbench to run against; the command line and the configuration override it.' },
      ),
      vars: {
        description: 'Variables for ${name}; `--var name=value` overrides them.',
        type: 'object',
        propertyNames: { pattern: VAR_NAME },
        additionalProperties: { type: ['string', 'number', 'boolean'] },
      },
      defaults: object({ expect_image: EXPECT_IMAGE_DEFAULTS }, [], { description: 'Default values per step kind.' }),
      foreach: object(
        {
          list: {
            description: 'Studies as paths or as maps of fields.',
            type: 'array',
            minItems: 1,
            items: { type: ['string', 'object'] },
          },
          glob: {
            description: 'A glob relative to the playbook, e.g. data/study-*/ct.nrrd.',
            type: 'string',
            minLength: 1,
          },
          csv: {
            description:
              "A CSV manifest with a header line (`,`, `;` or tab between fields; UTF-8 or Windows-1252, a byte-order mark and CRLF as Excel writes them); a `path` column is resolved against the manifest's folder.",
            type: 'string',
            minLength: 1,
          },
          delimiter: {
            description:
              'What separates the fields of the `csv` manifest; by default the one of `,` `;` and tab the header line uses most. With `;` a decimal comma (12,5) reads as a number.',
            enum: [',', ';', '\t'],
          },
          xlsx: {
            description:
              "An Excel workbook (.xlsx): the first row of the sheet is the header; numbers stay numbers, dates become ISO dates (2024-01-15), formulas give their saved value, empty rows are skipped; a `path` column is resolved against the workbook's folder.",
            type: 'string',
            minLength: 1,
          },
          sheet: {
            description: 'The sheet of the `xlsx` workbook that lists the studies (default: the first).',
            type: 'string',
            minLength: 1,
          },
          json: { description: 'A JSON array of study objects.', type: 'string', minLength: 1 },
          dicom: {
            description:
              'A folder of DICOM files, scanned with its sub-folders by content (headers only, any file name): one case per series (or study) with pixel data.',
            type: 'string',
            minLength: 1,
          },
          dicomweb: {
            description:
              "An archive's DICOMweb root (http:// or https://), searched with QIDO-RS: one case per series (or study), named as `dicom` names the same series; each is retrieved with WADO-RS into the local cache before its case runs, and `path` and `dir` are its folder there.",
            type: 'string',
            minLength: 1,
          },
          per: {
            description:
              'With `dicom` or `dicomweb`: one case per `series` (default; `path` is a file of it, or its folder in the cache) or per `study` (`path` is its folder).',
            enum: ['series', 'study'],
          },
          where: {
            description:
              'With `dicom` or `dicomweb`: only series whose DICOM keywords match, e.g. { Modality: CT, SeriesDescription: "*ARTERIAL*" }: a value, a list of values (any), or text with `*` and `?`; numbers compare as numbers, text case-sensitively.',
            ...WHERE_SCHEMA,
          },
          as: { description: 'Name of the study variable (default: study).', type: 'string', pattern: VAR_NAME },
        },
        [],
        { description: 'One case per study.', minProperties: 1 },
      ),
      ...postRunSchemas(),
      steps: {
        description: 'The steps, in order; each is a one-key map naming its kind.',
        type: 'array',
        items: stepItems,
      },
    },
    ['version', 'steps'],
  );
}

/** Each post-run stage's value under its key. */
function postRunSchemas(): Record<string, JsonSchema> {
  return Object.fromEntries(postRunStages.map((stage) => [stage.key, stage.schema]));
}

let topValidation: JsonSchema | undefined;

/** The top level as validated (steps are validated one by one). */
export function topValidationSchema(): JsonSchema {
  topValidation ??= { $id: 'wbplay:top', $defs: SCHEMA_DEFS, ...topSchema() };
  return topValidation;
}

const stepSchemas = new Map<StepKind, JsonSchema>();

/** The schema a step's value is validated with: its fragment plus the shared definitions. */
export function stepSchema(kind: StepKind): JsonSchema {
  let s = stepSchemas.get(kind);
  if (!s) {
    s = { $id: `wbplay:step/${kind}`, $defs: SCHEMA_DEFS, ...registry[kind].schema };
    stepSchemas.set(kind, s);
  }
  return s;
}

/**
 * The published schema (for editors and `wbplay schema`): the top level with every step kind
 * as an alternative, so an editor completes kinds and their fields.
 */
export function publishedSchema(layoutSchema: JsonSchema): JsonSchema {
  const alternatives: JsonSchema[] = STEP_KINDS.map((kind) => {
    const def = registry[kind];
    let fragment: JsonSchema = { description: def.summary, ...def.schema };
    if (kind === 'layout') fragment = withLayoutDocument(fragment);
    return {
      title: kind,
      description: def.summary,
      type: 'object',
      additionalProperties: false,
      required: [kind],
      properties: { [kind]: fragment },
    };
  });
  const bare = STEP_KINDS.filter((k) => registry[k].bare === true);
  const top = topSchema({
    anyOf: [
      ...alternatives,
      { title: 'step without options', description: `A step kind alone: ${bare.join(', ')}.`, enum: bare },
    ],
  });
  const defs: Record<string, JsonSchema> = {
    ...(allowTemplates(SCHEMA_DEFS) as Record<string, JsonSchema>),
    ...layoutDefs(layoutSchema),
    template: TEMPLATE,
  };
  return documented(
    {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: SCHEMA_ID,
      title: 'wbplay playbook',
      ...(allowTemplates(top) as JsonSchema),
      $defs: defs,
    },
    defs,
  ) as JsonSchema;
}

/**
 * Every property as an editor shows it: a title (its key) and a description, the shared
 * definition's when the property only refers to one, so completion and hover never fall back
 * to the bare type.
 */
function documented(s: unknown, defs: Record<string, JsonSchema>): unknown {
  if (Array.isArray(s)) return s.map((x) => documented(x, defs));
  if (s === null || typeof s !== 'object') return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k !== 'properties' || v === null || typeof v !== 'object') {
      out[k] = k === 'enum' || k === 'const' ? v : documented(v, defs);
      continue;
    }
    const props: Record<string, unknown> = {};
    for (const [name, prop] of Object.entries(v as Record<string, unknown>)) {
      if (prop === null || typeof prop !== 'object') {
        props[name] = prop;
        continue;
      }
      const p = documented(prop, defs) as JsonSchema;
      const ref = typeof p.$ref === 'string' ? defs[p.$ref.replace('#/$defs/', '')] : undefined;
      const description = p.description ?? ref?.description;
      props[name] = { title: p.title ?? name, ...p, ...(description !== undefined ? { description } : {}) };
    }
    out[k] = props;
  }
  return out;
}

/** A value that is one `${...}`: its type is known only once the variable is. */
const TEMPLATE: JsonSchema = {
  description: 'A variable, e.g. ${study.tumour_x}.',
  type: 'string',
  pattern: '^\\$\\{[^}]+\\}$',
};

/**
 * For editors, a number or a boolean may also be written as a variable (`${n}`); the compiler
 * checks the value itself once the variable is expanded.
 */
function allowTemplates(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(allowTemplates);
  if (s === null || typeof s !== 'object') return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s))
    out[k] = k === 'enum' || k === 'const' || k === 'required' ? v : allowTemplates(v);
  const type = out.type;
  if (type === 'number' || type === 'integer' || type === 'boolean') {
    const { description, ...rest } = out;
    return { ...(description !== undefined ? { description } : {}), anyOf: [rest, { $ref: '#/$defs/template' }] };
  }
  return out;
}

/** The layout schema's definitions, renamed under `layout_` so one file holds everything. */
function layoutDefs(layout: JsonSchema): Record<string, JsonSchema> {
  const rename = (s: unknown): unknown => {
    if (Array.isArray(s)) return s.map(rename);
    if (s === null || typeof s !== 'object') return s;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === '$schema' || k === '$id' || k === '$defs') continue;
      out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', '#/$defs/layout_') : rename(v);
    }
    return out;
  };
  const defs: Record<string, JsonSchema> = { layout_document: rename(layout) as JsonSchema };
  for (const [name, def] of Object.entries((layout.$defs ?? {}) as Record<string, unknown>))
    defs[`layout_${name}`] = rename(def) as JsonSchema;
  return defs;
}

function withLayoutDocument(fragment: JsonSchema): JsonSchema {
  const properties = { ...(fragment.properties as Record<string, JsonSchema>) };
  properties.document = { description: properties.document?.description, $ref: '#/$defs/layout_document' };
  return { ...fragment, properties };
}
