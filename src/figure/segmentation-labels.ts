import type { Rgb } from '../image/rgba.js';
import type { LegendEntry } from './compose.js';

/** The NRRD header key under which MITK keeps a multi-label segmentation's label groups. */
const LABEL_GROUPS_KEY = 'org.mitk.multilabel.segmentation.labelgroups:=';

/**
 * The visible labels of a MITK multi-label segmentation file (NRRD), as legend entries in the
 * order of their groups. Only the text header is read; the voxels are never inflated.
 */
export function segmentationLabels(nrrd: Uint8Array): LegendEntry[] {
  const end = headerEnd(nrrd);
  const header = new TextDecoder('latin1').decode(nrrd.subarray(0, end));
  const line = header.split(/\r?\n/).find((l) => l.startsWith(LABEL_GROUPS_KEY));
  if (line === undefined) return [];
  // The header is read byte for byte; the value itself is UTF-8 JSON.
  const json = Buffer.from(line.slice(LABEL_GROUPS_KEY.length), 'latin1').toString('utf8');
  let groups: unknown;
  try {
    groups = JSON.parse(markWholeNumberColours(json));
  } catch {
    return [];
  }
  if (!Array.isArray(groups)) return [];
  const entries: LegendEntry[] = [];
  for (const group of groups) {
    const labels = (group as { labels?: unknown } | null)?.labels;
    if (!Array.isArray(labels)) continue;
    for (const label of labels as Array<Record<string, unknown>>) {
      if (label === null || typeof label !== 'object' || label.visible === false) continue;
      entries.push({
        name: typeof label.name === 'string' ? label.name : `label ${String(label.value)}`,
        color: colourOf(label.color),
      });
    }
  }
  return entries;
}

/** The blank line after an NRRD header; the whole file when there is none. */
function headerEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 1 < bytes.length; i++) {
    if (bytes[i] === 0x0a && (bytes[i + 1] === 0x0a || (bytes[i + 1] === 0x0d && bytes[i + 2] === 0x0a))) return i;
  }
  return bytes.length;
}

const WHOLE = '__whole__';

/**
 * MITK writes a label colour either as fractions (`[1.0, 0.5, 0.0]`) or as bytes (`[255, 128,
 * 0]`), and tells them apart by how the first number is written, which JSON.parse forgets. A
 * colour written with a whole first number is marked before parsing.
 */
function markWholeNumberColours(json: string): string {
  return json.replace(/("color"\s*:\s*\[\s*)(-?\d+)(?=\s*[,\]])/g, `$1"${WHOLE}",$2`);
}

function colourOf(value: unknown): Rgb {
  const wrapped = value !== null && typeof value === 'object' && !Array.isArray(value);
  const list = wrapped ? (value as { value?: unknown }).value : value;
  if (!Array.isArray(list)) return [1, 1, 1];
  const bytes = list[0] === WHOLE;
  const numbers = (bytes ? list.slice(1) : list).slice(0, 3).map(Number);
  if (numbers.length < 3 || numbers.some((n) => !Number.isFinite(n))) return [1, 1, 1];
  const scale = bytes ? 1 / 255 : 1;
  return [numbers[0]! * scale, numbers[1]! * scale, numbers[2]! * scale];
}
