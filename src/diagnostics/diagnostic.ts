/**
 * A problem found in a playbook, as data. Codes are stable (tests, tools and scripts may read
 * them); messages and hints are for people and may be reworded.
 */
export type DiagnosticCode =
  | 'YAML_SYNTAX'
  | 'DUPLICATE_KEY'
  | 'NOT_A_MAP'
  | 'STEP_SHAPE'
  | 'UNKNOWN_STEP'
  | 'UNKNOWN_FIELD'
  | 'MISSING_FIELD'
  | 'WRONG_TYPE'
  | 'BAD_VALUE'
  | 'OUT_OF_RANGE'
  | 'BAD_COLOR'
  | 'BAD_VECTOR'
  | 'BAD_LENGTH'
  | 'EXCLUSIVE_FIELDS'
  | 'NOTHING_TO_DO'
  | 'WIDTH_HEIGHT'
  | 'FORMAT_MISMATCH'
  | 'CAMERA_CONFLICT'
  | 'CAMERA_KIND'
  | 'SLICE_3D'
  | 'WINDOW_ADDRESS'
  | 'WRONG_TARGET'
  | 'UNKNOWN_CELL'
  | 'UNKNOWN_NODE'
  | 'UNKNOWN_VARIABLE'
  | 'UNSET_ENV'
  | 'BAD_TEMPLATE'
  | 'BAD_VAR'
  | 'FILE_NOT_FOUND'
  | 'READ_ERROR'
  | 'INCLUDE_CYCLE'
  | 'INCLUDE_SHAPE'
  | 'FOREACH_SOURCE'
  | 'DUPLICATE_STUDY'
  | 'OUTPUT_COLLISION'
  | 'LAYOUT_INVALID'
  | 'NEEDS_FOREACH'
  | 'UNKNOWN_TILE'
  | 'UNKNOWN_CASE'
  | 'STUDY_IN_SAVE'
  | 'FIGURE_TOO_SMALL'
  | 'FIGURE_SHAPE'
  | 'SCALE_BAR_3D'
  | 'ANNOTATION_WITHOUT_CAMERA'
  | 'NO_REINIT';

/**
 * Where a problem is: 1-based line and column of its first character and of the character
 * after its end. `file` is the path as shown to the user.
 */
export interface Span {
  file: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
}

export interface Diagnostic {
  code: DiagnosticCode;
  /** One line saying what is wrong. */
  message: string;
  /** One line saying what to do about it. */
  hint?: string;
  /** Absent only for problems that have no place in a file (a bad `--var` on the command line). */
  span?: Span;
  /** A warning is shown but stops nothing; absent means an error. */
  severity?: 'warning';
}

/** Thrown by the API entry points that cannot return a partial result. */
export class PlaybookError extends Error {
  constructor(readonly diagnostics: readonly Diagnostic[]) {
    const first = diagnostics[0];
    super(
      first
        ? `${first.message}${diagnostics.length > 1 ? ` (and ${diagnostics.length - 1} more)` : ''}`
        : 'invalid playbook',
    );
    this.name = 'PlaybookError';
  }
}

/** Order of appearance in the files, so output is stable whatever order checks ran in. */
export function sortDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  return [...list].sort((a, b) => {
    const fa = a.span?.file ?? '';
    const fb = b.span?.file ?? '';
    if (fa !== fb) return fa < fb ? -1 : 1;
    return (a.span?.line ?? 0) - (b.span?.line ?? 0) || (a.span?.col ?? 0) - (b.span?.col ?? 0);
  });
}

/** The same problem found again (e.g. once per study of a cohort) is reported once. */
export function dedupeDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const d of list) {
    const key = `${d.code}|${d.span?.file}|${d.span?.line}|${d.span?.col}|${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out;
}
