import type { Vec3, Volume } from '../../volume/volume.js';

import type { Camera, ViewDirection } from '../../api/wire.js';
import type { Rgb, RgbaImage } from '../../image/rgba.js';

export type { Rgb, RgbaImage };

export type { ViewDirection };

/** VTK camera semantics: parallel_scale is half the view height in mm; angle in degrees. */
export type CameraState = Camera;

/** One node as a window draws it: visibility and layer already resolved for that window. */
export interface RenderLayer {
  uid: string;
  volume: Volume;
  /** Time step of this volume at the global time; clamped by the caller. */
  timeStep: number;
  /** 0..1; a segmentation's labels are drawn at their own opacity times this. */
  opacity: number;
  /** Tint of a grey image, 0..1 per channel; a segmentation's labels keep their own colours, as in MITK. */
  color: Rgb | null;
  /** Grey mapping of an image; not used by a segmentation. */
  levelWindow: { level: number; window: number };
  /**
   * How an image's values become colours; without it, MITK's default: 256 greys spread over
   * the level window. Not used by a segmentation.
   */
  colours?: LayerColours;
  /** Whether the slice texture is filtered bilinearly when magnified (MITK's `texture interpolation`). */
  textureInterpolation?: boolean;
  /** How values are taken between slices (MITK's `reslice interpolation`); default nearest. */
  resliceInterpolation?: 'nearest' | 'linear' | 'cubic';
  /** Stack order; higher is drawn on top. Layers arrive sorted ascending. */
  layer: number;
}

export interface View2D {
  kind: '2d';
  width: number;
  height: number;
  viewDirection: ViewDirection;
  /** Unit normal of the slice plane and a point on it (world). */
  planeNormal: Vec3;
  planePoint: Vec3;
  camera: CameraState;
  /**
   * Crosshair lines to draw: each is the intersection of this plane with another window's
   * plane, in that window's colour. Empty when the crosshair is hidden.
   */
  crosshair: Array<{ planeNormal: Vec3; planePoint: Vec3; color: Rgb }>;
  background: Rgb;
}

export interface View3D {
  kind: '3d';
  width: number;
  height: number;
  camera: CameraState;
  /** The orthogonal slice planes shown in the 3D window, each clipped to `bounds`. */
  planes: Array<{ planeNormal: Vec3; planePoint: Vec3; color: Rgb }>;
  bounds: { min: Vec3; max: Vec3 } | null;
  background: Rgb;
}

export type View = View2D | View3D;

/**
 * A value-to-colour table as MITK's level-window filter applies it: RGBA bytes spread over a
 * value range. `rounded` is the filter's own fast map for linear tables (index = value scaled
 * to the table plus one half, truncated, in single precision); `linear` and `log` are VTK's
 * `MapValue` for tables it cannot take the fast way (another scale, a log10 scale).
 */
export interface LayerColours {
  /** RGBA bytes, four per entry. */
  table: Uint8Array;
  /** The values the table spans: the level window's bounds, or the table's own range. */
  range: [number, number];
  lookup: 'rounded' | 'linear' | 'log';
}
