import { showFile } from './describe.js';
import type { StepRunContext } from './run-context.js';
import { object, ref } from './schema-defs.js';
import type { StepDefinition } from './step-definition.js';
import type { StoreArgs } from './store-instances.js';

export type { StoreArgs };

/**
 * `store`: puts what a case made back into the archive, next to the study it came from.
 * Captures and figures become Secondary Capture instances, a segmentation node a DICOM SEG,
 * each in a new series of the source study. Their UIDs derive from the source's, the
 * playbook's name and the output's, so a rerun or a resumed run stores nothing twice.
 */
interface StoreRaw {
  dicomweb: string;
  images?: string[];
  node?: string;
  series_description?: string;
  series_number?: number;
  study?: string;
}

/** Series numbers of derived series start high, clear of a scanner's own. */
const DEFAULT_SERIES_NUMBER = 9001;

export const store: StepDefinition<'store', StoreArgs> = {
  kind: 'store',
  summary:
    "Store captures (as DICOM Secondary Capture) or a segmentation node (as DICOM SEG) into the case's study in a DICOMweb archive.",
  schema: object(
    {
      dicomweb: {
        description: "The archive's DICOMweb root (http:// or https://); STOW-RS stores into it.",
        type: 'string',
        minLength: 1,
      },
      images: {
        description:
          'PNG files this playbook wrote (screenshots, figures), each stored as one RGB Secondary Capture instance with its pixels exact.',
        type: 'array',
        minItems: 1,
        items: ref('file'),
      },
      node: {
        ...ref('node'),
        description: 'A segmentation node, stored as one DICOM SEG that references the source series.',
      },
      series_description: {
        description: 'SeriesDescription of the new series (default: wbplay and the playbook name).',
        type: 'string',
        minLength: 1,
        maxLength: 64,
      },
      series_number: {
        description: `SeriesNumber of the new series (default ${DEFAULT_SERIES_NUMBER}).`,
        type: 'integer',
        minimum: 1,
      },
      study: {
        description:
          'The StudyInstanceUID to store into, for a case that did not come from DICOM; a DICOM case stores into its own study.',
        type: 'string',
        pattern: '^[0-9.]{1,64}$',
      },
    },
    ['dicomweb'],
  ),
  compile(raw, ctx) {
    const r = raw as StoreRaw;
    if ((r.images === undefined) === (r.node === undefined))
      ctx.error(
        r.images === undefined ? 'MISSING_FIELD' : 'EXCLUSIVE_FIELDS',
        [],
        '`store` takes either `images` or `node`',
        'e.g. store: { dicomweb: URL, images: ["${out}/axial.png"] } or store: { dicomweb: URL, node: seg }',
      );
    const node = r.node !== undefined ? ctx.node(r.node, ['node']) : undefined;
    const study = ctx.study;
    const source = typeof study?.path === 'string' && study.SeriesInstanceUID !== undefined ? study.path : undefined;
    if (source === undefined && r.study === undefined && ctx.studyUnknown !== true)
      ctx.error(
        'MISSING_FIELD',
        ['dicomweb'],
        'this case did not come from DICOM, so `store` does not know which study its results belong to',
        'give the study with `study: <StudyInstanceUID>`, or run the playbook over `foreach: dicom` or `foreach: dicomweb`',
      );
    if (!/^https?:\/\/[^/]/.test(r.dicomweb))
      ctx.error(
        'BAD_VALUE',
        ['dicomweb'],
        `\`${r.dicomweb}\` is not an http:// or https:// URL`,
        "give the archive's DICOMweb root, e.g. http://localhost:8042/dicom-web",
      );
    const playbook = ctx.playbook.replace(/\.ya?ml$/i, '');
    return {
      dicomweb: r.dicomweb.replace(/\/+$/, ''),
      ...(r.images ? { images: r.images.map((p) => ctx.resolvePath(p)) } : {}),
      ...(node ? { node, nodeName: r.node } : {}),
      series_description: r.series_description ?? `wbplay ${playbook}`.slice(0, 64),
      series_number: r.series_number ?? DEFAULT_SERIES_NUMBER,
      ...(r.study !== undefined ? { study: r.study } : source !== undefined ? { source } : {}),
      playbook,
    };
  },
  async run(a, ctx) {
    if (!ctx.archives)
      throw Object.assign(new Error('this run has no access to DICOMweb archives'), {
        code: 'NO_ARCHIVE',
        hint: 'run the playbook with `wbplay run`',
      });
    const { storeInstances } = await import('./store-instances.js');
    const result = await storeInstances(
      a,
      ctx as StepRunContext & { archives: NonNullable<StepRunContext['archives']> },
    );
    ctx.notice(
      `${a.series_description}: ${result.stored.length} stored, ${result.present.length} already in the archive`,
    );
    return { status: 'passed', resolvedArgs: { ...a, stored: result.stored.length, present: result.present.length } };
  },
  describe(a) {
    const what = a.images ? a.images.map(showFile).join(', ') : `node ${a.nodeName ?? 'segmentation'}`;
    return `store ${what} as "${a.series_description}" in ${archiveOrigin(a.dicomweb)}`;
  },
};

/** Scheme, host and port: enough to tell archives apart, without the path or anything after it. */
function archiveOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
