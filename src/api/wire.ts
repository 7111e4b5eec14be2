/**
 * The workbench's REST vocabulary, once, for the client and the reference workbench: types only.
 * Parsed representations. Field names are those of the service interface document
 * (snake_case, as on the wire where the wire has them).
 */

export type Vec3 = [number, number, number];

export interface ServerInfo {
  name: string;
  api_version: string;
  /** From `engine_version`, or `mitk_version` as the workbench writes it. */
  engine_version: string;
  /** As advertised, unknown modes kept. */
  transfer_modes: string[];
  documentation_url: string | null;
}

export interface Health {
  status: string;
  checks: Record<string, string>;
  uptime_seconds: number | null;
}

export interface FileAccessConfig {
  /** `unrestricted` or `allowed-directories`; another value from a newer server is kept. */
  mode: string;
  restrictions_active: boolean;
  max_active_temp_dirs_per_ip: number;
  allowed_paths: string[];
}

export interface NodeInfo {
  uid: string;
  name: string;
  path: string;
  parent_uid: string | null;
  data_type: string | null;
  children_count: number;
  timestamp: number;
}

export interface PositionBounds {
  min_position: Vec3 | null;
  max_position: Vec3 | null;
}

export interface SelectedPosition {
  position: Vec3;
  bounds: PositionBounds;
}

export interface SelectedTime {
  timepoint_ms: number;
  timestep: number;
  bounds: { min_timepoint_ms: number; max_timepoint_ms: number; steps: number };
}

export type EditorAlias = 'stdmulti' | 'mxn';
export type WindowKind = '2d' | '3d';
export type ViewDirection = 'axial' | 'sagittal' | 'coronal' | 'original';
export type StandardView = 'anterior' | 'posterior' | 'left' | 'right' | 'cranial' | 'caudal';
export type UpdateTarget = 'all' | '2d' | '3d';

export interface EditorDescriptor {
  alias: string;
  plugin_id: string;
  active: boolean;
}

export interface EditorInfo extends EditorDescriptor {
  /** Window ids; empty when the editor is not open. */
  windows: string[];
}

/** An entry of an editor's window list, in server order. */
export interface WindowListEntry {
  id: string;
  kind: WindowKind;
  /** Absent for the 3D window. */
  view_direction?: ViewDirection;
  /** MxN cells: the display label (wire key `name`), null when none. */
  display_name?: string | null;
  /** MxN cells: synchronisation links (`selection` at least). */
  links?: Record<string, unknown>;
}

export interface WindowSummary {
  id: string;
  kind: WindowKind;
  view_direction?: ViewDirection;
  has_camera: boolean;
  has_selected_slice: boolean;
}

export interface MxnCellSummary extends WindowSummary {
  display_name: string | null;
  links: Record<string, unknown>;
  has_selected_position: boolean;
}

export interface Camera {
  position: Vec3;
  focal_point: Vec3;
  view_up: Vec3;
  /** 2D windows; null on the 3D window. */
  parallel_scale: number | null;
  /** The 3D window; null on 2D windows. */
  perspective_angle: number | null;
}

/** A partial camera update; omitted fields keep their value. */
export interface CameraPatch {
  position?: Vec3;
  focal_point?: Vec3;
  view_up?: Vec3;
  parallel_scale?: number;
  perspective_angle?: number;
  standard_view?: StandardView;
}

export interface SelectedSlice {
  step: number;
  position: Vec3;
  bounds: { steps: number; min_position: Vec3 | null; max_position: Vec3 | null };
}

export type ScreenshotFormat = 'png' | 'jpeg';

export interface ScreenshotOptions {
  format?: ScreenshotFormat;
  /** Width and height come together (1..8192); the image is scaled to exactly that size. */
  width?: number;
  height?: number;
}

export interface Screenshot {
  bytes: Uint8Array;
  contentType: string;
}
