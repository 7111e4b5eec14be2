import { basename } from 'node:path';
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
    .map(([k, v]) => `${k}=${Array.isArray(v) ? showVec(v as number[]) : v === null ? 'none' : typeof v === 'object' ? showNode(v as NodeRef) : String(v)}`)
    .join(', ');
}
