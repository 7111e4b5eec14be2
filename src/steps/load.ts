import { WorkbenchApiError } from '../client/errors.js';
import { uidTag } from '../dicomweb/uid-tag.js';
// Straight from its module: the client's index loads the HTTP stack, which validating never needs.
import { dropUndefined, requireApplied, showFields, showFile, showNode } from './describe.js';
import { displayFields, ignoredColour, type DisplayFields, type RawDisplay } from './display-fields.js';
import { MARKER_PROPERTY, type StepRunContext } from './run-context.js';
import { object, ref } from './schema-defs.js';
import type { NodeRef, StepDefinition } from './step-definition.js';
import { checkWhere, WHERE_SCHEMA, type Where } from '../volume/dicom/where.js';

/** Files read by their name's format; any other file is looked into for DICOM. */
const IMAGE_EXTENSIONS = /\.(nrrd|nhdr|nii|nii\.gz|mha|mhd|png|jpe?g|vtk|vtp|stl|obj|ply|mitklabel|json)$/i;

export const TRANSFER_MODES = ['auto', 'direct', 'file-reference'] as const;

/** One series of a DICOMweb archive, by its UIDs. */
export interface DicomwebSeries {
  url: string;
  study: string;
  series: string;
}

export interface LoadArgs {
  /** For a `dicomweb` load, the series' folder in the cache, known once it is retrieved. */
  file: string;
  /** A series of an archive: retrieved into the cache first, then loaded as any DICOM series. */
  dicomweb?: DicomwebSeries;
  as?: string;
  name?: string;
  parent?: NodeRef;
  /** `auto` lets the runner choose: file reference when the workbench shares this machine, else bytes. */
  transfer: (typeof TRANSFER_MODES)[number];
  format?: string;
  /** With a folder of DICOM files: the DICOM keywords that pick its one series to load. */
  where?: Where;
  visible?: boolean;
  opacity?: number;
  color?: [number, number, number];
  layer?: number;
  /** Level window, colour map, interpolation, outline and other properties. */
  display?: DisplayFields;
}

interface LoadRaw extends RawDisplay {
  file?: string;
  dicomweb?: DicomwebSeries;
  as?: string;
  name?: string;
  parent?: string;
  transfer?: LoadArgs['transfer'];
  format?: string;
  where?: Where;
  visible?: boolean;
  opacity?: number;
  color?: [number, number, number];
  layer?: number;
}

export const load: StepDefinition<'load', LoadArgs> = {
  kind: 'load',
  summary: 'Load a data file into the workbench as a new node, optionally under a parent and with display properties.',
  schema: object({
    file: ref('file'),
    dicomweb: object(
      {
        url: {
          description: "The archive's DICOMweb root (http:// or https://).",
          type: 'string',
          minLength: 1,
        },
        study: { description: 'The StudyInstanceUID.', type: 'string', pattern: '^[0-9.]{1,64}$' },
        series: { description: 'The SeriesInstanceUID.', type: 'string', pattern: '^[0-9.]{1,64}$' },
      },
      ['url', 'study', 'series'],
      {
        description:
          'Instead of `file`: one series of a DICOMweb archive, retrieved with WADO-RS into the local cache and loaded as MITK reads DICOM.',
      },
    ),
    as: ref('alias'),
    name: {
      description: 'Node name shown in the workbench (default: the file name without its extension).',
      type: 'string',
      minLength: 1,
    },
    parent: ref('node'),
    transfer: {
      description:
        'How the data reaches the workbench: `direct` sends the bytes, `file-reference` names a file the workbench reads itself, `auto` chooses a file reference when the workbench runs on this machine and offers it, else the bytes. A DICOM series is never sent file by file: its bytes are the series read here and sent as one NRRD.',
      enum: [...TRANSFER_MODES],
      default: 'auto',
    },
    format: {
      description: 'Data format hint, when the file extension does not say it.',
      type: 'string',
      minLength: 1,
    },
    where: {
      description:
        'With a folder of DICOM files as `file`: the DICOM keywords that pick its one series, e.g. { Modality: CT, SeriesDescription: "*ARTERIAL*" }: a value, a list of values (any), or text with `*` and `?`; none or several matching is an error that lists the series.',
      ...WHERE_SCHEMA,
    },
    visible: {
      description: "Whether the node is shown in every window (default: the workbench's).",
      type: 'boolean',
    },
    opacity: ref('opacity'),
    layer: {
      description: 'Stack order in every window; higher is drawn on top (default: the order nodes were made in).',
      type: 'integer',
    },
    color: ref('color'),
    ...displayFields.schema,
  }),
  compile(raw, ctx) {
    const r = raw as LoadRaw;
    const parent = r.parent !== undefined ? ctx.node(r.parent, ['parent']) : undefined;
    for (const p of r.where ? checkWhere(r.where) : [])
      ctx.error(
        'BAD_VALUE',
        ['where', p.key, ...(p.index === undefined ? [] : [p.index])],
        p.message,
        "where selects on the DICOM keywords of a series' headers (docs/dicom.md); the patient's name and birth date are never read",
      );
    if (r.file === undefined && r.dicomweb === undefined)
      ctx.error('MISSING_FIELD', [], 'missing field `file`', 'add `file:`, or `dicomweb:` for a series of an archive');
    if (r.file !== undefined && r.dicomweb !== undefined)
      ctx.error(
        'EXCLUSIVE_FIELDS',
        ['dicomweb'],
        '`load` takes either `file` or `dicomweb`',
        'keep `file` for a file or folder here, or `dicomweb` for a series of an archive',
      );
    if (r.dicomweb !== undefined && r.where !== undefined)
      ctx.error(
        'EXCLUSIVE_FIELDS',
        ['where'],
        '`where` picks a series of a folder; `dicomweb` names one',
        'drop `where`',
      );
    if (r.dicomweb !== undefined && !/^https?:\/\/[^/]/.test(r.dicomweb.url))
      ctx.error(
        'BAD_VALUE',
        ['dicomweb', 'url'],
        `\`${r.dicomweb.url}\` is not an http:// or https:// URL`,
        "give the archive's DICOMweb root, e.g. http://localhost:8042/dicom-web",
      );
    const dicomweb = r.dicomweb ? { ...r.dicomweb, url: r.dicomweb.url.replace(/\/+$/, '') } : undefined;
    const args: LoadArgs = {
      file: r.file !== undefined ? ctx.inputFile(r.file, ['file']) : '',
      ...(dicomweb ? { dicomweb } : {}),
      ...(r.as !== undefined ? { as: r.as } : {}),
      ...(r.name !== undefined ? { name: r.name } : {}),
      ...(parent ? { parent } : {}),
      transfer: r.transfer ?? 'auto',
      ...(r.format !== undefined ? { format: r.format } : {}),
      ...(r.where !== undefined ? { where: r.where } : {}),
      ...(r.visible !== undefined ? { visible: r.visible } : {}),
      ...(r.opacity !== undefined ? { opacity: r.opacity } : {}),
      ...(r.layer !== undefined ? { layer: r.layer } : {}),
      ...(r.color !== undefined ? { color: r.color } : {}),
      ...(displayFields.present(r) ? { display: displayFields.compile(r, ctx) } : {}),
    };
    ctx.defineNode(r.as, r.name);
    return args;
  },
  async run(a, ctx) {
    // The client's upload code is loaded by a run, not by every command that reads a playbook.
    const [{ splitFileName }, { displayPatch }] = await Promise.all([
      import('../client/upload.js'),
      import('../client/display-patch.js'),
    ]);
    if (a.dicomweb) a = { ...a, file: await retrieved(a.dicomweb, ctx) };
    const parent = a.parent ? await ctx.resolveNode(a.parent) : undefined;
    // DICOM by content, whatever the file's name; the reader is loaded only for files that may be.
    const maybeDicom = a.where !== undefined || (a.format === undefined && !IMAGE_EXTENSIONS.test(a.file));
    const dicomLoad = maybeDicom ? await import('./load-dicom.js') : undefined;
    const dicomFile = await dicomLoad?.dicomFileToLoad(a.file, a.where, a.format);
    const name =
      a.name ?? (dicomFile !== undefined ? await dicomLoad!.dicomNodeName(dicomFile) : splitFileName(a.file).stem);
    const properties = {
      [MARKER_PROPERTY]: ctx.marker,
      ...displayPatch(dropUndefined({ visible: a.visible, opacity: a.opacity, color: a.color, layer: a.layer })),
    };
    const earlier = ctx.attempt > 1 ? await findEarlier(ctx) : undefined;
    let uid = earlier?.uid;
    let refused: string[] = [];
    let sent: { sent: 'file-reference' | 'nrrd'; file: string; slices?: number } | undefined;
    const dicomCreate =
      dicomFile === undefined
        ? undefined
        : {
            file: dicomFile,
            name,
            properties,
            provisionalName: ctx.marker,
            ...(parent !== undefined ? { parent } : {}),
            transfer: a.transfer,
            signal: ctx.signal,
          };
    // A series sent as NRRD is followed by two property requests, each of which may have failed.
    let completed = false;
    if (earlier !== undefined && earlier.how !== 'bound' && dicomLoad !== undefined && dicomCreate !== undefined) {
      const done = await dicomLoad.completeDicomNode(ctx.client, earlier.uid, dicomCreate);
      if (done !== undefined) {
        completed = true;
        refused = done.failed;
        sent = {
          sent: done.sent,
          file: dicomCreate.file,
          ...(done.slices !== undefined ? { slices: done.slices } : {}),
        };
      }
    }
    if (!completed && earlier?.how === 'named') {
      // Its bytes arrived but not its properties: they are set now.
      const patched = await ctx.client.properties.patch(earlier.uid, { name, ...properties }, { signal: ctx.signal });
      refused = patched.failed.map((f) => f.property);
    }
    if (uid === undefined && dicomLoad !== undefined && dicomCreate !== undefined) {
      const created = await dicomLoad.createDicomNode(ctx.client, dicomCreate);
      uid = created.uid;
      refused = created.failed;
      sent = {
        sent: created.sent,
        file: dicomCreate.file,
        ...(created.slices !== undefined ? { slices: created.slices } : {}),
      };
      if (created.sent === 'nrrd')
        ctx.notice(
          `the workbench cannot read ${dicomFile}: the series was read here and sent as NRRD, ${created.slices} slices`,
        );
    }
    if (uid === undefined) {
      // Name, marker and display in the request that makes the node: one exchange when the
      // workbench reads the file itself, two when the bytes travel (their properties follow).
      const created = await ctx.client.nodes.create({
        file: a.file,
        name,
        provisionalName: ctx.marker,
        properties,
        ...(parent !== undefined ? { parent } : {}),
        ...(a.transfer !== 'auto' ? { transfer: a.transfer } : {}),
        ...(a.format !== undefined ? { format: a.format } : {}),
        signal: ctx.signal,
      });
      uid = created.node.uid;
      refused = created.failed_properties;
    }
    // Bound first: a node whose display was refused is still this case's to remove.
    ctx.bindNode(a.as, uid);
    requireApplied({ updated: [], failed: refused.map((property) => ({ property, error: 'refused' })) }, uid);
    // Level window, colour map and the rest need the data's own defaults first: after the load.
    if (a.display) await displayFields.apply(ctx.client, uid, a.display, { signal: ctx.signal });
    const ignored = await ignoredColour(ctx.client, uid, a.color, { signal: ctx.signal });
    if (ignored !== undefined) ctx.notice(ignored);
    return {
      status: 'passed',
      resolvedArgs: { ...a, ...(parent !== undefined ? { parent: { uid: parent } } : {}), uid, ...sent },
    };
  },
  describe(a) {
    const extra = [
      showFields({ name: a.name, visible: a.visible, opacity: a.opacity, color: a.color, layer: a.layer }),
      a.display ? displayFields.describe(a.display) : '',
    ]
      .filter(Boolean)
      .join(', ');
    const where = a.where ? ` where ${JSON.stringify(a.where)}` : '';
    const what = a.dicomweb
      ? `series ${uidTag(a.dicomweb.series)} of ${new URL(a.dicomweb.url).origin}`
      : showFile(a.file);
    return `load ${what}${where}${a.as ? ` as ${a.as}` : ''}${a.parent ? ` under ${showNode(a.parent)}` : ''} (${a.transfer}${extra ? `; ${extra}` : ''})`;
  },
};

/**
 * The node an earlier attempt of this step made, if it made one: `bound` when that attempt got
 * as far as binding it (every property was set), else found on the workbench: `named` by the
 * marker as its provisional name (bytes that arrived before their properties), `marked` by the
 * marker property (its properties arrived, what followed them may not have).
 */
async function findEarlier(
  ctx: StepRunContext,
): Promise<{ uid: string; how: 'bound' | 'named' | 'marked' } | undefined> {
  const known = ctx.earlierNode();
  if (known !== undefined) return { uid: known, how: 'bound' };
  const call = { signal: ctx.signal };
  // Bytes that arrived before their properties could follow: the node has the marker as its name.
  const named = (await ctx.client.nodes.list({}, call)).find((n) => n.name === ctx.marker);
  let found = named?.uid;
  if (found === undefined) {
    // A server that ignores the filter answers with every node: each candidate is checked.
    const candidates = await ctx.client.nodes.list(
      { properties: { [MARKER_PROPERTY]: ctx.marker }, property_scope: 'node' },
      call,
    );
    for (const n of candidates) {
      // Only the workbench's own answer that the node has no such property (or is gone) rules it
      // out: a lost, refused or failed request says nothing, and taking it for "not ours" would load a second node.
      const value = await ctx.client.properties
        .get(n.uid, MARKER_PROPERTY, { scope: 'node', ...call })
        .catch((err: unknown) => {
          if (err instanceof WorkbenchApiError && (err.code === 'PROPERTY_NOT_FOUND' || err.code === 'NODE_NOT_FOUND'))
            return undefined;
          throw err;
        });
      if (value === ctx.marker) found = n.uid;
    }
  }
  if (found === undefined) return undefined;
  ctx.notice(
    `the answer to an earlier attempt was lost but its node was created (${found}); using that node instead of loading again`,
  );
  return { uid: found, how: named !== undefined ? 'named' : 'marked' };
}

/** The folder of an archive's series in the cache, retrieved when it is not there complete. */
async function retrieved(series: DicomwebSeries, ctx: StepRunContext): Promise<string> {
  if (!ctx.archives)
    throw Object.assign(new Error('this run has no access to DICOMweb archives'), {
      code: 'NO_ARCHIVE',
      hint: 'run the playbook with `wbplay run`',
    });
  return (await ctx.archives.retrieveSeries(series.url, series.study, series.series)).dir;
}
