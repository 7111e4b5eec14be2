// The public API of wbplay: what a program needs to drive a workbench, run playbooks and read
// their results. Everything else is internal and may change without notice; test/index.test.ts
// lists this surface, so a change to it shows in review.

export { VERSION } from './version.js';

// The client of the workbench REST API, launching and finding workbenches.
export { connect, WorkbenchClient, launchWorkbench, discover, float } from './client/index.js';
// Display properties: MITK's level-window presets and the colour maps reproduced exactly.
export { LEVEL_WINDOW_PRESETS, COLORMAPS } from './client/index.js';
export type {
  ConnectOptions,
  CallOptions,
  ExchangeEvent,
  LaunchOptions,
  LaunchedWorkbench,
  LayoutDocument,
  NodeInfo,
  ServerInfo,
  Camera,
  CameraPatch,
  Screenshot,
  Display,
  LevelWindow,
  LevelAndWindow,
  LevelWindowPreset,
  Colormap,
  InterpolationSettings,
  OutlineSettings,
  PropertyWriteResult,
} from './client/index.js';

// Errors: every one carries a stable `code`.
export {
  WorkbenchError,
  WorkbenchApiError,
  WorkbenchNetworkError,
  WorkbenchUsageError,
  WorkbenchProtocolError,
  WorkbenchLaunchError,
} from './client/index.js';
export { PlaybookError } from './diagnostics/diagnostic.js';
export type { Diagnostic, DiagnosticCode, Span } from './diagnostics/diagnostic.js';
export { CompareError } from './image/image-error.js';
export type { CompareErrorCode } from './image/image-error.js';
export { ReportError } from './report/report-error.js';
export type { ReportErrorCode } from './report/report-error.js';

// Playbooks: load (throws on any problem) or compile (returns every problem), print a plan.
export { loadPlaybook, compilePlaybook, formatPlan, PLAN_VERSION } from './compile/index.js';
export type {
  CompileOptions,
  CompileResult,
  Plan,
  PlanCase,
  PlanStep,
  PlanSpan,
  PlanWorkbench,
} from './compile/index.js';
export { renderDiagnostics } from './diagnostics/render.js';

// Running plans, and the reporter events the runner emits.
export { runPlans } from './run/runner.js';
export type { RunOptions } from './run/runner.js';
export { launchedWorkbenches } from './run/workbenches.js';
export type { StartedWorkbench, WorkbenchFactory, WorkbenchSource, WorkbenchUrls } from './run/workbenches.js';
export { DEFAULT_RETRY } from './run/retry.js';
export { WorkbenchUnreachableError } from './run/preflight.js';
export type { RetryPolicy } from './run/retry.js';
export type { Shard } from './run/shard.js';
export type { UpdateMode } from './compare/golden.js';
export type { OutputStream, Reporter, RunStartInfo } from './result/reporter.js';
export { createReporters } from './report/factory.js';
export type { ReporterName, ReporterSetup } from './report/factory.js';
export type { ReporterFanout, ReporterFailure } from './report/fan-out.js';

// Results: what `runPlans` returns (its cases read one at a time) and the tree report.json holds.
export { RESULT_VERSION } from './result/result.js';
export type {
  Attempt,
  Artefact,
  CaseInfo,
  CaseList,
  CaseResult,
  CaseSummary,
  ErrorInfo,
  ImageAssertion,
  Provenance,
  RunResult,
  SourceSpan,
  Status,
  StepInfo,
  StepResult,
  Summary,
  RunHead,
  RunResultTree,
} from './result/result.js';
export { readProvenance } from './files/provenance.js';
export type { FigureProvenance } from './files/provenance.js';

// Image comparison.
export { compareImages } from './compare/compare-images.js';
export type {
  AreaResult,
  CompareOptions,
  Comparison,
  ComparisonKind,
  ImageInput,
  RegionResult,
} from './compare/compare-images.js';
export type { RegionOptions, Tolerance } from './compare/tolerance.js';
export type { Rect, RgbaImage, Size } from './image/rgba.js';

// The reference workbench, to try and test without MITK; embedded ones as the workbenches of a run.
export { startReferenceWorkbench } from './sim/start.js';
export { embeddedWorkbenches } from './sim/embedded.js';
export type { ReferenceWorkbenchHandle, ReferenceWorkbenchOptions } from './sim/server.js';
