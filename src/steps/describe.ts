import { basename } from 'node:path';
import type { PatchResult } from '../client/index.js';
import type { NodeRef } from './step-definition.js';

/** How plan descriptions show values: short, and the same everywhere. */
export function showNode(node: NodeRef): string {
  if ('ref' in node) return node.ref;
  if ('uid' in node) return `uid:${node.uid}`;
  return `name:${node.name}`;
}

export function showVec(v: readonly number[]): string {
  return `[${v.join(', ')}]`;
}

export function showFile(path: string): string {
  return basename(path);
}

/** `a=1, b=2` of the defined entries. */
export function showFields(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(
      ([k, v]) =>
        `${k}=${Array.isArray(v) ? showVec(v as number[]) : v === null ? 'none' : typeof v === 'object' ? showNode(v as NodeRef) : String(v)}`,
    )
    .join(', ');
}

/** The entries that are set, for bodies where an absent field means "leave as is". */
export function dropUndefined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key in fields) if (fields[key] !== undefined) out[key] = fields[key];
  return out;
}

/** A property the workbench refused in a PATCH (it answers 200 and lists it) fails the step. */
export function requireApplied(result: PatchResult, uid: string): void {
  if (result.failed.length === 0) return;
  const what = result.failed.map((f) => `${f.property} (${f.error})`).join(', ');
  throw Object.assign(new Error(`the workbench did not apply ${what} to node ${uid}`), {
    code: 'PROPERTY_NOT_APPLIED',
  });
}
