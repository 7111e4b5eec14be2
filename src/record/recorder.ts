import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import type { Camera, NodeInfo, Vec3 } from '../api/wire.js';
import type { WorkbenchClient } from '../client/index.js';
import { portableLink } from '../files/portable-path.js';
import { dicomSourceOf } from './dicom-source.js';
import { dicomwebSourceOf } from './dicomweb-source.js';
import { displayOf, imageFields, sameNumbers, windowLevelWindow, type Display } from './node-display.js';

export interface RecordOptions {
  /** Where the playbook will be written: the files it loads are written relative to it. */
  playbook: string;
  /** Where node data is downloaded. */
  dataDir: string;
  /** A node's own file instead of its downloaded data, by node name. */
  map?: ReadonlyMap<string, string>;
  /** Shown in the header: the workbench and when it was recorded (injectable for tests). */
  url: string;
  now?: Date;
  /** The DICOMweb cache: a node read from it is recorded as the archive's series it holds. */
  cacheRoot?: string;
}

export interface Recording {
  text: string;
  /** Nodes that could not be reproduced, also listed in the playbook's header. */
  warnings: string[];
}

const STD_WINDOWS = ['axial', 'sagittal', 'coronal', '3d'] as const;

/**
 * Reads the state of a running workbench and writes a playbook that makes it again on a fresh
 * one: the nodes (data downloaded, or the user's own files), their tree, names and display
 * (level window, colour map or lookup table, rendering mode and interpolation of images too),
 * the windows' per-node visibility, layer and level window, the MxN layout, the selected position and time, every
 * window's slice and camera, and a screenshot of every window. What cannot be reproduced is
 * listed, never dropped silently.
 */
export async function recordWorkbench(client: WorkbenchClient, options: RecordOptions): Promise<Recording> {
  const info = await client.info();
  const nodes = await client.nodes.list({ hierarchy: 'all' });
  const aliases = aliasesOf(nodes);
  const warnings: string[] = [];
  const steps: string[] = [];
  const loaded = new Set<string>();
  const display = new Map<string, Display>();
  const here = dirname(options.playbook);
  await mkdir(options.dataDir, { recursive: true });

  for (const node of inTreeOrder(nodes)) {
    const alias = aliases.get(node.uid)!;
    if (node.parent_uid !== null && !loaded.has(node.parent_uid)) {
      warnings.push(`${node.name}: its parent was not reproduced, so it is not either`);
      continue;
    }
    let file = options.map?.get(node.name) ?? (await dicomSourceOf(client, node.uid));
    if (file === undefined) {
      try {
        const data = await client.nodes.getData(node.uid);
        if (data.mode !== 'direct') throw new Error('the workbench handed out a file reference, not the data');
        const path = join(options.dataDir, `${alias}${extensionOf(data.filename, data.contentType)}`);
        await writeFile(path, data.bytes);
        file = path;
      } catch (err) {
        warnings.push(
          `${node.name} (${node.data_type ?? 'no data'}): cannot be downloaded (${(err as Error).message})`,
        );
        continue;
      }
    }
    const props = await displayOf(client, node.uid);
    display.set(node.uid, props);
    const archived = options.cacheRoot !== undefined ? await dicomwebSourceOf(file, options.cacheRoot) : undefined;
    const source = archived
      ? `dicomweb: { url: ${quote(archived.url)}, study: ${quote(archived.study)}, series: ${quote(archived.series)} }`
      : `file: ${quote(portableLink(here, file))}`;
    const fields: string[] = [source, `as: ${alias}`, `name: ${quote(node.name)}`];
    if (node.parent_uid !== null) fields.push(`parent: ${aliases.get(node.parent_uid)!}`);
    if (!props.visible) fields.push('visible: false');
    if (props.opacity !== props.defaults.opacity) fields.push(`opacity: ${num(props.opacity)}`);
    if (props.color && !sameNumbers(props.color, props.defaults.color))
      fields.push(`color: [${props.color.map(num).join(', ')}]`);
    // A new node's layer is its place in creation order, as in MITK: only another one is written.
    if (props.layer !== undefined && props.layer !== loaded.size) fields.push(`layer: ${props.layer}`);
    fields.push(...imageFields(props.image));
    steps.push(`  - load: { ${fields.join(', ')} }`);
    loaded.add(node.uid);
  }

  // The world geometry and the time steps come from a reinit over the data, as when the scene
  // was built; the slices and cameras below then put every window where it was.
  if (loaded.size > 0) steps.push('  - reinit');

  const editors = await client.editors.list();
  const mxnActive = editors.some((e) => e.alias === 'mxn' && e.active);
  if (mxnActive) {
    const layoutFile = join(options.dataDir, 'layout.json');
    await writeFile(layoutFile, `${JSON.stringify(await client.mxn.layout(), null, 2)}\n`);
    steps.push(`  - layout: { file: ${quote(portableLink(here, layoutFile))} }`);
  }

  // Per-window visibility and layer, where a window differs from the node's own.
  const windows = [
    ...STD_WINDOWS.map((id) => ({ address: `stdmulti/${id}`, handle: client.stdmulti.window(id), is3d: id === '3d' })),
    ...(mxnActive ? (await client.mxn.cells()).map((c) => ({ address: `mxn/${c.id}`, handle: c, is3d: false })) : []),
  ];
  for (const w of windows) {
    for (const node of nodes) {
      if (!loaded.has(node.uid)) continue;
      const visible = await w.handle.nodeVisible(node.uid).catch(() => undefined);
      const layer = await w.handle.nodeLayer(node.uid).catch(() => undefined);
      const own = display.get(node.uid)!;
      const parts: string[] = [];
      if (visible !== undefined && visible !== own.visible) parts.push(`visible: ${String(visible)}`);
      if (layer !== undefined && layer !== own.layer) parts.push(`layer: ${layer}`);
      const lw = own.image ? await windowLevelWindow(client, node.uid, w.handle.context) : undefined;
      if (lw && own.image && !sameNumbers([lw.level, lw.window], [own.image.level, own.image.window]))
        parts.push(`level_window: { level: ${num(lw.level)}, window: ${num(lw.window)} }`);
      if (parts.length > 0)
        steps.push(`  - window_node: { window: ${w.address}, node: ${aliases.get(node.uid)!}, ${parts.join(', ')} }`);
    }
  }

  const time = await client.rendering.time();
  if (time.timestep !== 0) steps.push(`  - time: { step: ${time.timestep} }`);
  // Slices first and the position after: selecting a slice snaps the crosshair to the slice's
  // centre, while the position may lie between centres; the position keeps the slices it was in.
  for (const w of windows)
    if (!w.is3d) steps.push(`  - slice: { window: ${w.address}, step: ${(await w.handle.selectedSlice()).step} }`);
  steps.push(`  - position: ${vec((await client.rendering.selectedPosition()).position)}`);
  for (const w of windows) steps.push(`  - camera: { window: ${w.address}, ${cameraFields(await w.handle.camera())} }`);
  for (const w of windows)
    steps.push(`  - screenshot: { of: ${w.address}, save: "\${out}/${w.address.replace(/\//g, '-')}.png" }`);

  const header = [
    `# Recorded from ${info.name} at ${options.url} (engine ${info.engine_version}, API ${info.api_version})`,
    `# on ${(options.now ?? new Date()).toISOString()} by wbplay record.`,
    ...(warnings.length > 0 ? ['#', '# Not reproduced:', ...warnings.map((w) => `#   ${w}`)] : []),
    'version: 1',
    'name: Recorded',
    'steps:',
  ];
  return { text: `${[...header, ...steps].join('\n')}\n`, warnings };
}

/** Aliases from node names: lower case, words joined by `_`, unique. */
function aliasesOf(nodes: readonly NodeInfo[]): Map<string, string> {
  const used = new Set<string>();
  const out = new Map<string, string>();
  for (const n of nodes) {
    let base =
      n.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_+|_+$/g, '') || 'node';
    if (!/^[a-z_]/.test(base)) base = `n_${base}`;
    let alias = base;
    for (let i = 2; used.has(alias); i++) alias = `${base}_${i}`;
    used.add(alias);
    out.set(n.uid, alias);
  }
  return out;
}

/** Parents before their children, otherwise in the workbench's order. */
function inTreeOrder(nodes: readonly NodeInfo[]): NodeInfo[] {
  const out: NodeInfo[] = [];
  const placed = new Set<string>();
  const visit = (n: NodeInfo): void => {
    if (placed.has(n.uid)) return;
    const parent = n.parent_uid !== null ? nodes.find((p) => p.uid === n.parent_uid) : undefined;
    if (parent) visit(parent);
    placed.add(n.uid);
    out.push(n);
  };
  nodes.forEach(visit);
  return out;
}

function extensionOf(filename: string | null, contentType: string): string {
  if (filename) {
    const lower = filename.toLowerCase();
    if (lower.endsWith('.nii.gz')) return '.nii.gz';
    const ext = extname(lower);
    if (ext) return ext;
  }
  return /nrrd/i.test(contentType) ? '.nrrd' : '.nrrd';
}

function cameraFields(c: Camera): string {
  const fields = [`position: ${vec(c.position)}`, `focal_point: ${vec(c.focal_point)}`, `view_up: ${vec(c.view_up)}`];
  if (c.parallel_scale !== null) fields.push(`parallel_scale: ${num(c.parallel_scale)}`);
  if (c.perspective_angle !== null) fields.push(`perspective_angle: ${num(c.perspective_angle)}`);
  return fields.join(', ');
}

const vec = (v: Vec3): string => `[${v.map(num).join(', ')}]`;
/** Numbers as JavaScript writes them: the shortest text that reads back to the same double. */
const num = (n: number): string => String(n);
const quote = (s: string): string => JSON.stringify(s);
