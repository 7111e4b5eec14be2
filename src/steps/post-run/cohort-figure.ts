import { CORNERS } from '../../figure/annotation-kinds.js';
import { FIGURE_FORMATS } from '../../figure/compose.js';
import { LENGTH_PATTERN } from '../../figure/length.js';
import type { Artefact } from '../../result/result.js';
import { ANNOTATION_SCHEMA } from '../figure-annotations.js';
import { object, ref } from '../schema-defs.js';
import type { JsonSchema } from '../step-definition.js';
import { compileCohortFigure } from './cohort-figure-compile.js';
import { COHORT_FIGURE_STEP, type CohortFigurePlan } from './cohort-figure-plan.js';
import type { PostRunStage } from './post-run-stage.js';

const length = (description: string): JsonSchema => ({ description, type: 'string', pattern: LENGTH_PATTERN });

/** A point of the patient, in numbers or in texts that become numbers per study (`"${study.tumour_x}"`). */
const POINT: JsonSchema = {
  description: 'Three numbers [x, y, z] in world millimetres; each may be a study field, e.g. "${study.tumour_x}".',
  type: 'array',
  items: { anyOf: [{ type: 'number' }, { type: 'string', minLength: 1 }] },
  minItems: 3,
  maxItems: 3,
  examples: [[12.5, -4, 30]],
};

/**
 * The annotations of a figure panel, with points that may come from the study; no inset, which
 * needs the workbench to capture its magnified view, and the workbench is gone after the run.
 */
function cohortAnnotation(schema: JsonSchema): JsonSchema {
  const swap = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(swap);
    if (value === null || typeof value !== 'object') return value;
    const v = value as Record<string, unknown>;
    if (v.$ref === '#/$defs/vec3')
      return { ...POINT, ...(typeof v.description === 'string' ? { description: v.description } : {}) };
    return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, swap(inner)]));
  };
  const swapped = swap(schema) as JsonSchema & { properties: Record<string, JsonSchema> };
  const { inset: _inset, ...properties } = swapped.properties;
  return {
    ...swapped,
    description:
      'One annotation: `arrow`, `circle`, `text` or `ruler`, its points in world millimetres or from the study.',
    properties,
  };
}

const COLUMN = object(
  {
    tile: {
      description:
        "Per study: its capture shown in this column, e.g. ${out}/${study.name}/axial.png; a PNG screenshot of that case's window.",
      type: 'string',
      minLength: 1,
    },
    heading: { description: 'The heading above the column.', type: 'string' },
    scale_bar: {
      description:
        'A scale bar of this many millimetres in every cell of the column, measured by the camera each capture recorded; 2D windows only.',
      anyOf: [
        { description: 'Length in millimetres.', type: 'number', exclusiveMinimum: 0, examples: [20] },
        object(
          {
            length: { description: 'Length in millimetres.', type: 'number', exclusiveMinimum: 0, examples: [20] },
            color: { ...ref('color'), description: 'Colour of the bar and its label; default white.' },
            corner: { description: 'The corner it is drawn in (default bottom-right).', enum: [...CORNERS] },
          },
          ['length'],
          { description: 'A scale bar with its colour and corner.' },
        ),
      ],
    },
    annotations: {
      description:
        'Arrows, circles, text and rulers placed by world millimetres through the camera each capture recorded; a point may be the study\'s, e.g. at: ["${study.tumour_x}", "${study.tumour_y}", "${study.tumour_z}"].',
      type: 'array',
      items: cohortAnnotation(ANNOTATION_SCHEMA),
    },
  },
  ['tile'],
  { description: 'One column: the same capture of every chosen study.' },
);

/**
 * The `cohort_figure` of a cohort playbook: a publication figure whose rows are chosen cases and
 * whose cells are their captures, made once all cases have run and again by `wbplay
 * cohort-figure` from a finished output folder. Drawing is loaded only when a figure is made.
 */
export const cohortFigure: PostRunStage<'cohort_figure', CohortFigurePlan> = {
  key: 'cohort_figure',
  schema: object(
    {
      cases: {
        description:
          'The rows: `representative` (the cases a review marked so, from review.json of the output folder: run `wbplay review` first), a list of case names, or { where: { field: value } }.',
        anyOf: [
          { description: 'The cases marked Representative in `wbplay review`.', const: 'representative' },
          {
            description: 'Case names, one per row, in this order.',
            type: 'array',
            minItems: 1,
            items: { description: 'A case name as the report shows it.', type: 'string', minLength: 1 },
          },
          object(
            {
              where: {
                description:
                  'Studies whose fields have these values (a list: any of them), in the order of the cohort.',
                type: 'object',
                minProperties: 1,
                additionalProperties: {
                  description: 'A value, or a list of values.',
                  anyOf: [
                    { type: ['string', 'number', 'boolean'] },
                    { type: 'array', minItems: 1, items: { type: ['string', 'number', 'boolean'] } },
                  ],
                },
              },
            },
            ['where'],
            { description: 'The studies whose fields match.' },
          ),
        ],
      },
      row_label: {
        description: 'Per study: the label left of its row (default: the case name), e.g. ${study.name}.',
        type: 'string',
      },
      columns: { description: 'The columns, left to right.', type: 'array', minItems: 1, items: COLUMN },
      save: {
        description: 'The PNG to write, once for all rows (no ${study.…}); the other `formats` go beside it.',
        type: 'string',
        pattern: '\\.png$',
      },
      formats: {
        description: 'The files written beside `save`, by extension (default [png, svg]).',
        type: 'array',
        minItems: 1,
        items: { description: 'A file format.', enum: [...FIGURE_FORMATS] },
      },
      width: length('Width of the whole figure: 89mm, 183mm, 7in, 2000px.'),
      height: length("Height of the whole figure; default: from the captures' shape."),
      dpi: { description: 'Dots per inch (default 300).', type: 'integer', minimum: 50, maximum: 2400 },
      letters: {
        description: 'Panel letters: `upper` (A, B, …, the default), `lower` (a, b, …) or `none`.',
        enum: ['upper', 'lower', 'none'],
      },
      font_size: { description: 'Type size in points (default 8).', type: 'number', minimum: 4, maximum: 72 },
      margin: length('Space around the figure (default 1mm).'),
      gap: length('Space between panels (default 1mm).'),
      background: { ...ref('color'), description: 'Background colour (default white).' },
      text_color: { ...ref('color'), description: 'Colour of headings, row labels and the legend (default black).' },
      letter_color: { ...ref('color'), description: 'Colour of the panel letters (default white).' },
      legend: object(
        {
          entries: {
            description: 'Coloured entries below the panels.',
            type: 'array',
            items: object(
              {
                name: { description: 'The text of the entry.', type: 'string', minLength: 1 },
                color: ref('color'),
              },
              ['name', 'color'],
              { description: 'One legend entry.' },
            ),
          },
        },
        [],
        { description: 'A legend below the panels.', minProperties: 1 },
      ),
    },
    ['columns', 'save', 'width'],
    {
      description:
        'A publication figure of chosen studies after the run: a row per study, a column per capture, with panel letters, headings, row labels, scale bars and annotations; needs `foreach`.',
    },
  ),
  compile: compileCohortFigure,

  describe(figure) {
    const chosen =
      figure.choice.by === 'representative'
        ? 'the cases review.json marks representative'
        : `${figure.rows.length} case${figure.rows.length === 1 ? '' : 's'}`;
    const others = Object.keys(figure.files).filter((f) => f !== 'png');
    const lines = [
      `Cohort figure of ${chosen} by ${figure.columns.length} column${figure.columns.length === 1 ? '' : 's'} to ${figure.save}${others.length > 0 ? ` and ${others.map((f) => `.${f}`).join(', ')}` : ''} at ${figure.width} px, ${figure.dpi} dpi`,
    ];
    if (figure.choice.by === 'representative') return lines;
    const width = Math.max(...figure.rows.map((r) => r.name.length));
    for (const r of figure.rows)
      lines.push(`  ${r.name.padEnd(width)}  ${r.label !== r.name ? `label=${r.label}  ` : ''}${r.tiles.join('  ')}`);
    return lines;
  },

  /**
   * The figure over this run's captures. A chosen case this run did not pass (a shard runs some
   * cases only) leaves the figure to `wbplay cohort-figure` once all have run: a notice says so.
   */
  async run(figure, ctx) {
    const { makeCohortFigure, CohortFigureError } = await import('./cohort-figure-image.js');
    const passed = new Set(ctx.cases.filter((c) => c.status === 'passed').map((c) => c.id));
    try {
      return await makeCohortFigure(figure, {
        playbook: ctx.playbook,
        outputDir: ctx.outputDir,
        passed,
        notice: ctx.notice,
      });
    } catch (err) {
      if (!(err instanceof CohortFigureError)) throw err;
      ctx.notice(`the cohort figure ${figure.save} was not made: ${err.message}; ${err.hint}`);
      return [];
    }
  },

  owns: (figure: Artefact) => figure.provenance?.step === COHORT_FIGURE_STEP,

  /**
   * Shards each saw some of the chosen cases only, so none of their figures is the whole one:
   * the merged report names none, and `wbplay cohort-figure` draws it from the merged folder.
   */
  merge: () => [],

  async redraw() {
    // Nothing is merged (see `merge`), so nothing is drawn again.
  },
};
