// The client's public surface; everything else in this folder is internal.
export { connect, WorkbenchClient, type ConnectOptions } from './client.js';
export type { CallOptions, ExchangeEvent } from './transport.js';
export {
  WorkbenchError,
  WorkbenchApiError,
  WorkbenchNetworkError,
  WorkbenchUsageError,
  WorkbenchProtocolError,
  WorkbenchLaunchError,
  type NetworkErrorCode,
  type UsageErrorCode,
  type LaunchErrorCode,
  type ProtocolErrorCode,
} from './errors.js';
export { float, floats, JsonFloat } from './json-body.js';
export { splitFileName } from './upload.js';
export {
  launchWorkbench,
  discover,
  PORT_RANGE,
  type LaunchOptions,
  type LaunchedWorkbench,
  type DiscoveredWorkbench,
} from './launch.js';
export type { Nodes, NodeFilter, FilterValue, DisplayProperties, NodeData } from './nodes.js';
export type { CreateNodeOptions, CreatedNode, TransferMode } from './node-creation.js';
export type { Properties, PropertyScope, PropertyValue, PropertyOptions, PatchResult } from './properties.js';
export type {
  Display,
  InterpolationSettings,
  OutlineSettings,
  PropertyWriteResult,
  ColormapState,
  ResliceInterpolation,
} from './display.js';
export { LEVEL_WINDOW_PRESETS, type LevelWindow, type LevelAndWindow, type LevelWindowPreset } from './level-window.js';
export { COLORMAPS, COLORMAPS_LEFT_OUT, type Colormap, type LookupTableColours } from './lookup-tables.js';
export type { Rendering, TimeTarget } from './rendering.js';
export type { Editors, StdMultiEditor, MxnEditor } from './editors.js';
export {
  STDMULTI_RENDERERS,
  type RenderWindow,
  type StdMultiWindow,
  type MxnCell,
  type StdMultiWindowId,
} from './windows.js';
export {
  layoutCellIds,
  type LayoutDocument,
  type LayoutGroup,
  type LayoutSplit,
  type LayoutWindow,
  type LayoutLinks,
  type LayoutNode,
} from './layout.js';
export type * from '../api/wire.js';
