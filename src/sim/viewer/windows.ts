import type { CameraState, Rgb, ViewDirection } from '../render/types.js';
import type { Vec3 } from '../../volume/volume.js';
import { reset2D, reset3D, type WindowSize } from './camera.js';

import type { EditorAlias } from '../../api/wire.js';

export type { EditorAlias };
export const EDITOR_ALIASES: readonly EditorAlias[] = ['stdmulti', 'mxn'];

export const PLUGIN_IDS: Record<EditorAlias, string> = {
  stdmulti: 'org.mitk.editors.stdmultiwidget',
  mxn: 'org.mitk.editors.mxnmultiwidget',
};

/** Class names the real server puts in its EDITOR_NOT_ACTIVE messages. */
export const EDITOR_CLASSES: Record<EditorAlias, string> = {
  stdmulti: 'StdMultiWidgetEditor',
  mxn: 'MxNMultiWidgetEditor',
};

export interface Window2D {
  kind: '2d';
  id: string;
  direction: ViewDirection;
  /** Context names under which per-window node properties are looked up, in order. */
  contexts: string[];
  size: WindowSize;
  camera: CameraState;
  step: number;
}

export interface Window3D {
  kind: '3d';
  id: string;
  contexts: string[];
  size: WindowSize;
  camera: CameraState;
}

export type RenderWindow = Window2D | Window3D;

/** An MxN cell: a 2D window with its own selected position, display name and group. */
export interface Cell extends Window2D {
  name?: string;
  group: string;
  position: Vec3;
}

export const STDMULTI_IDS = ['axial', 'sagittal', 'coronal', '3d'] as const;
export type StdMultiId = (typeof STDMULTI_IDS)[number];

export function isStdMultiId(id: string): id is StdMultiId {
  return (STDMULTI_IDS as readonly string[]).includes(id);
}

/**
 * MITK numbers the StdMulti render windows widget0..3 (axial, sagittal, coronal, 3D); the
 * renderer names are the other spelling of a per-window property context.
 */
export const RENDERER_NAMES: Record<StdMultiId, string> = {
  axial: 'stdmulti.widget0',
  sagittal: 'stdmulti.widget1',
  coronal: 'stdmulti.widget2',
  '3d': 'stdmulti.widget3',
};

/** Crosshair and plane colours of the three orthogonal directions, as MITK draws them (0..1). */
export const PLANE_COLORS: Record<'axial' | 'sagittal' | 'coronal', Rgb> = {
  axial: [1, 0, 0],
  sagittal: [0, 1, 0],
  coronal: [0, 0, 1],
};

/** Native pixel sizes: a StdMulti window, and the MxN editor's canvas its cells share. */
export const STDMULTI_WINDOW_SIZE: WindowSize = { width: 512, height: 512 };
export const MXN_CANVAS_SIZE: WindowSize = { width: 1024, height: 768 };
/** The StdMulti canvas: 2x2 windows with a 2-px splitter between them. */
export const STDMULTI_SPLITTER = 2;

/** The four StdMulti windows as a freshly opened editor has them, before any reinit. */
export function stdMultiWindows(): Record<StdMultiId, RenderWindow> {
  const size = STDMULTI_WINDOW_SIZE;
  const win2d = (id: 'axial' | 'sagittal' | 'coronal'): Window2D => ({
    kind: '2d',
    id,
    direction: id,
    contexts: [id, RENDERER_NAMES[id]],
    size,
    step: 0,
    camera: reset2D(id, null, 0, size),
  });
  return {
    axial: win2d('axial'),
    sagittal: win2d('sagittal'),
    coronal: win2d('coronal'),
    '3d': { kind: '3d', id: '3d', contexts: ['3d', RENDERER_NAMES['3d']], size, camera: reset3D(null, size) },
  };
}
