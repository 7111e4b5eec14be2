import type { Span, Diagnostic } from '../diagnostics/diagnostic.js';
import type { StepKind } from '../steps/step-definition.js';
import type { WindowAddress } from '../steps/window-address.js';

/*
 * What a playbook may do without an error and still get wrong. A warning does not stop a run
 * or fail a check: it is shown with its place, as an error is.
 */

/** How far a case has come: data loaded, and windows fitted to it since. */
interface Progress {
  loaded: boolean;
  fitted: boolean;
}

const progress = new WeakMap<object, Progress>();

/**
 * A StdMulti capture after the first `load` with no `reinit` in between: MITK shows nothing
 * in a window its slice navigators were never fitted to, so the file is of one colour. MxN
 * cells are left out: a `layout` step sets up its own cells. `caseState` is the object that
 * stands for one case being compiled.
 */
export function captureWarning(
  caseState: object,
  kind: StepKind,
  args: unknown,
  span: () => Span,
): Diagnostic | undefined {
  let p = progress.get(caseState);
  if (!p) progress.set(caseState, (p = { loaded: false, fitted: false }));
  if (kind === 'load') p.loaded = true;
  else if (kind === 'reinit') p.fitted = true;
  else if (kind === 'screenshot' && p.loaded && !p.fitted) {
    const of = (args as { of: WindowAddress }).of;
    if (of.target !== 'app' && of.editor === 'mxn') return undefined;
    return {
      code: 'NO_REINIT',
      severity: 'warning',
      message: `\`${of.address}\` is captured with no \`reinit\` after the first \`load\`: the capture will show no data`,
      hint: 'add `- reinit` after the `load` steps, before the screenshot: loading data does not fit the windows to it',
      span: span(),
    };
  }
  return undefined;
}
