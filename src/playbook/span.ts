import type { Span } from '../diagnostics/diagnostic.js';
import type { SourceFile } from './source.js';
import { locate, type PathSegment, type YNode } from './tree.js';

/** Where a value (or its key) is; a missing value is shown at the nearest thing that exists. */
export function spanAt(source: SourceFile, root: YNode, path: readonly PathSegment[], onKey: boolean): Span {
  const found = locate(root, path);
  if (onKey && found.key && found.complete) return source.span(found.key.start, found.key.end);
  const n = found.node;
  // A whole map or list is shown by its first line, not all of it.
  if (n.type !== 'scalar') {
    const first = source.text.indexOf('\n', n.start);
    return source.span(n.start, first < 0 || first > n.end ? n.end : first);
  }
  return source.span(n.start, n.end);
}
