// The reference workbench's public surface: start it over HTTP, or assemble it without sockets.
export { startReferenceWorkbench } from './server.js';
export type { ReferenceWorkbenchHandle, ReferenceWorkbenchOptions } from './server.js';
export { createWorkbench } from './workbench.js';
export type { Workbench, WorkbenchInternals } from './workbench.js';
export type { HandledResponse, TransportInfo } from './handler.js';
export type { SimRequest, SimResponse } from './http-types.js';
export { WorkbenchConfigError, DEFAULT_ENGINE_VERSION } from './config.js';
export { FAULT_SPEC_HELP, FaultSpecError, parseFaults } from './faults.js';
export type { FaultKind, FaultRule, FaultSpec } from './faults.js';
export type { EventLog, WorkbenchEvent } from './event-log.js';
