import { closest } from '../diagnostics/did-you-mean.js';

/** The two built-in editors, by their URL alias. */
export const EDITORS = ['stdmulti', 'mxn'] as const;
export type EditorAlias = (typeof EDITORS)[number];

/** The StdMulti window ids, fixed by the workbench. */
export const STDMULTI_WINDOWS = ['axial', 'sagittal', 'coronal', '3d'] as const;

/** MxN cell ids: `<editor name>__<bare id>`, the same string in URLs and layout documents. */
export const CELL_ID = /^[A-Za-z][A-Za-z0-9.-]*__[A-Za-z0-9_.-]+$/;

/** What an address may point at: the application window, an editor canvas or one render window. */
export type WindowTarget = 'app' | 'editor' | 'window';

export type WindowAddress =
  | { target: 'app'; address: 'app' }
  | { target: 'editor'; address: string; editor: EditorAlias }
  | { target: 'window'; address: string; editor: EditorAlias; window: string; kind: '2d' | '3d' };

export interface AddressProblem {
  message: string;
  hint: string;
}

const KNOWN = ['app', ...EDITORS, ...STDMULTI_WINDOWS.map((w) => `stdmulti/${w}`)];

/** Parses `app`, `<editor>` or `<editor>/<window id>`. */
export function parseWindowAddress(value: string): WindowAddress | AddressProblem {
  if (value === 'app') return { target: 'app', address: 'app' };
  const slash = value.indexOf('/');
  const editor = slash < 0 ? value : value.slice(0, slash);
  if (!isEditor(editor)) {
    // A bare window name (`axial`) is the usual slip: StdMulti's windows need their editor.
    const window = closest(value, STDMULTI_WINDOWS);
    const near = closest(value, KNOWN) ?? closest(editor, EDITORS) ?? (window && `stdmulti/${window}`);
    return {
      message: `unknown editor \`${editor}\` in window address \`${value}\``,
      hint:
        near !== undefined
          ? `did you mean \`${near}\`?`
          : 'a window address is `app`, `stdmulti`, `mxn`, `stdmulti/<axial|sagittal|coronal|3d>` or `mxn/<cell id>`',
    };
  }
  if (slash < 0) return { target: 'editor', address: value, editor };
  const id = value.slice(slash + 1);
  if (editor === 'stdmulti') {
    if ((STDMULTI_WINDOWS as readonly string[]).includes(id)) {
      return { target: 'window', address: value, editor, window: id, kind: id === '3d' ? '3d' : '2d' };
    }
    const near = closest(id, STDMULTI_WINDOWS);
    return {
      message: `unknown StdMulti window \`${id}\``,
      hint:
        near !== undefined
          ? `did you mean \`stdmulti/${near}\`?`
          : 'StdMulti has the windows axial, sagittal, coronal and 3d',
    };
  }
  if (CELL_ID.test(id)) return { target: 'window', address: value, editor, window: id, kind: '2d' };
  const bare = /^[A-Za-z0-9_.-]+$/.test(id) && !id.includes('__');
  return {
    message: `\`${id}\` is not an MxN cell id`,
    hint: bare
      ? `cell ids carry the editor name: did you mean \`mxn/mxn__${id}\`?`
      : 'cell ids look like `mxn__ct_axial` (letters, digits, `.`, `-`, `_`, with `__` after the editor name)',
  };
}

export function isAddressProblem(value: WindowAddress | AddressProblem): value is AddressProblem {
  return 'message' in value;
}

function isEditor(value: string): value is EditorAlias {
  return (EDITORS as readonly string[]).includes(value);
}
