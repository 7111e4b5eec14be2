import { json, type SimResponse } from './http-types.js';

/**
 * Error codes of the workbench REST API with the HTTP status and title the real server uses.
 * NO_DATA is 404 on the data endpoint and 422 on reinit; callers pass the status there.
 */
export const PROBLEMS = {
  INVALID_REQUEST: [400, 'Invalid Request'],
  PROPERTY_PROTECTED: [400, 'Property Protected'],
  UNAUTHORIZED: [401, 'Unauthorized'],
  ACCESS_DENIED: [403, 'Access Denied'],
  FILE_ACCESS_DENIED: [403, 'File Access Denied'],
  NODE_NOT_FOUND: [404, 'Node Not Found'],
  PROPERTY_NOT_FOUND: [404, 'Property Not Found'],
  NO_DATA: [404, 'No Data'],
  RENDER_WINDOW_NOT_FOUND: [404, 'Render Window Not Found'],
  UNSUPPORTED_OPERATION: [404, 'Unsupported Operation'],
  TRANSFER_MODE_NOT_AVAILABLE: [406, 'Transfer Mode Not Available'],
  CIRCULAR_HIERARCHY_REFERENCE: [409, 'Circular Hierarchy Reference'],
  NODE_HAS_CHILDREN: [409, 'Node Has Children'],
  UNSUPPORTED_FORMAT: [415, 'Unsupported Format'],
  FILE_NOT_FOUND: [422, 'File Not Found'],
  FILE_READ_ERROR: [422, 'File Read Error'],
  NO_GEOMETRY: [422, 'No Geometry'],
  RENDERING_ERROR: [422, 'Rendering Error'],
  RATE_LIMIT_EXCEEDED: [429, 'Rate Limit Exceeded'],
  INTERNAL_ERROR: [500, 'Internal Server Error'],
  SERIALIZATION_ERROR: [500, 'Serialization Error'],
  TIME_STEPPER_NOT_AVAILABLE: [500, 'Time Stepper Not Available'],
  RENDERER_UNAVAILABLE: [500, 'Renderer Unavailable'],
  DATASTORAGE_NOT_AVAILABLE: [503, 'DataStorage Not Available'],
  RENDER_WINDOW_NOT_AVAILABLE: [503, 'Render Window Not Available'],
  EDITOR_NOT_ACTIVE: [503, 'Editor Not Active'],
  EDITOR_BUSY: [503, 'Editor Busy'],
  TIME_NAVIGATION_NOT_AVAILABLE: [503, 'Time Navigation Not Available'],
  /** Not sent by a real 1.2 server (SPEC 1.1 had it); only an injected fault answers with it. */
  SERVICE_UNAVAILABLE: [503, 'Service Unavailable'],
} as const satisfies Record<string, readonly [number, string]>;

export type ProblemCode = keyof typeof PROBLEMS;

/** Thrown by route handlers; the handler turns it into the wrapped problem body. */
export class Problem extends Error {
  constructor(
    readonly code: ProblemCode,
    message: string,
    readonly options: {
      /** HTTP status when it differs from the code's usual one (NO_DATA on reinit: 422). */
      status?: number;
      /** Extra keys inside `error`, e.g. `available_modes`, `children_count`, `retry_after`. */
      extra?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = 'Problem';
  }
}

/**
 * The body a real workbench sends: always wrapped in `error`. The body's `status` keeps the
 * code's usual status even where the HTTP status differs (the real server's NO_DATA quirk).
 */
export function problemResponse(p: Problem, instance: string): SimResponse {
  const [usualStatus, title] = PROBLEMS[p.code];
  const status = p.options.status ?? usualStatus;
  return json(
    status,
    {
      error: {
        type: `https://rest-api.mitk.org/errors/${p.code}`,
        code: p.code,
        title,
        message: p.message,
        status: usualStatus,
        ...(instance ? { instance } : {}),
        ...p.options.extra,
      },
    },
    p.options.headers,
  );
}
