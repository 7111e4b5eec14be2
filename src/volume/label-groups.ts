import { FloatLiteral, JsonSyntaxError, parseJson, writeJson, type Json } from './json-literals.js';
import { LABEL_DEFAULTS, MAX_LABEL_VALUE, type Label, type LabelGroup } from './segmentation.js';
import { unreadable } from './image-read-error.js';

/** A label group as its JSON describes it, before the group's pixels are attached. */
export type GroupInfo = Omit<LabelGroup, 'frames'>;

const WHERE = 'label-group JSON';
const LABEL_KEYS = new Set(['value', 'name', 'color', 'opacity', 'visible', 'locked']);

type JsonObject = { [key: string]: Json };
const isObject = (v: Json | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof FloatLiteral);
const numberOf = (v: Json | undefined): number | undefined =>
  typeof v === 'number' ? v : v instanceof FloatLiteral ? v.value : undefined;

/**
 * Reads MITK's label groups (the `org.mitk.multilabel.segmentation.labelgroups` header value):
 * an array of groups `{name?, labels?: [{value, name, color, opacity, visible, locked, ...}]}`.
 * Missing label settings take MITK's defaults for a new label; keys not read here are kept as
 * written, so they travel on when the segmentation is saved again.
 */
export function readLabelGroups(text: string): GroupInfo[] {
  let json: Json;
  try {
    json = parseJson(text);
  } catch (err) {
    unreadable(`${WHERE}: ${err instanceof JsonSyntaxError ? err.message : String(err)}`);
  }
  if (!Array.isArray(json)) unreadable(`${WHERE}: expected an array of label groups`);
  const seen = new Set<number>();
  return json.map((entry, g) => {
    if (!isObject(entry)) unreadable(`${WHERE}: group ${g} is not an object`);
    const { labels, name, ...extra } = entry;
    if (name !== undefined && typeof name !== 'string') unreadable(`${WHERE}: group ${g}: 'name' must be a string`);
    if (labels !== undefined && !Array.isArray(labels)) unreadable(`${WHERE}: group ${g}: 'labels' must be an array`);
    const read = (labels ?? []).map((l, i) => readLabel(l, `group ${g}, label ${i}`));
    for (const label of read) {
      if (seen.has(label.value))
        unreadable(`${WHERE}: label value ${label.value} is used twice; label values are unique across all groups`);
      seen.add(label.value);
    }
    return { name: name ?? '', labels: read, extra };
  });
}

function readLabel(entry: Json, where: string): Label {
  if (!isObject(entry)) unreadable(`${WHERE}: ${where} is not an object`);
  const value = numberOf(entry.value);
  if (value === undefined || !Number.isInteger(value) || value < 1 || value > MAX_LABEL_VALUE) {
    unreadable(`${WHERE}: ${where} needs a 'value' from 1 to ${MAX_LABEL_VALUE} (0 is the unlabelled background)`);
  }
  const label: Label = { ...LABEL_DEFAULTS, color: [...LABEL_DEFAULTS.color], value, extra: {} };
  const where2 = `${where} (value ${value})`;
  for (const [key, v] of Object.entries(entry)) {
    if (!LABEL_KEYS.has(key)) label.extra[key] = v;
  }
  if (entry.name !== undefined) {
    if (typeof entry.name !== 'string') unreadable(`${WHERE}: ${where2}: 'name' must be a string`);
    label.name = entry.name;
  }
  if (entry.color !== undefined) label.color = readColor(entry.color, where2);
  if (entry.opacity !== undefined) {
    const opacity = numberOf(entry.opacity);
    if (opacity === undefined) unreadable(`${WHERE}: ${where2}: 'opacity' must be a number`);
    label.opacity = opacity;
  }
  for (const key of ['visible', 'locked'] as const) {
    const v = entry[key];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') unreadable(`${WHERE}: ${where2}: '${key}' must be true or false`);
    label[key] = v;
  }
  return label;
}

/**
 * MITK's three spellings of a colour: `[r, g, b]` with fractions (0..1), `[r, g, b]` with whole
 * numbers (0..255) — told apart by how the first component is written, as MITK does — and the
 * older property form `{"type": "ColorProperty", "value": [r, g, b]}` (0..1).
 */
function readColor(v: Json, where: string): [number, number, number] {
  const fail = (): never =>
    unreadable(`${WHERE}: ${where}: 'color' must be [r, g, b] (0..1 or 0..255) or {"value": [r, g, b]}`);
  const wrapped = isObject(v);
  const list = wrapped ? v.value : v;
  if (!Array.isArray(list) || list.length < 3) return fail();
  const rgb = list.slice(0, 3).map(numberOf);
  if (rgb.some((c) => c === undefined || !Number.isFinite(c))) return fail();
  const scale = !wrapped && !(list[0] instanceof FloatLiteral) ? 1 / 255 : 1;
  return [rgb[0]! * scale, rgb[1]! * scale, rgb[2]! * scale];
}

/**
 * The label groups as MITK writes them: compact, keys in sorted order, colours and opacities as
 * fractions (a whole-number colour would be read back as 0..255), a group's `labels` and `name`
 * left out when empty; kept keys are written back as they came.
 */
export function writeLabelGroups(groups: readonly GroupInfo[]): string {
  return writeJson(
    groups.map((group) => {
      const out: Record<string, unknown> = { ...group.extra };
      if (group.labels.length > 0) out.labels = group.labels.map(labelJson);
      if (group.name !== '') out.name = group.name;
      return sortKeys(out);
    }),
  );
}

function labelJson(label: Label): Record<string, unknown> {
  return sortKeys({
    ...label.extra,
    color: label.color.map((c) => new FloatLiteral(c)),
    locked: label.locked,
    name: label.name,
    opacity: new FloatLiteral(label.opacity),
    value: label.value,
    visible: label.visible,
  });
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(o).sort())
    Object.defineProperty(out, key, { value: o[key], enumerable: true, writable: true, configurable: true });
  return out;
}
