import { WorkbenchApiError, WorkbenchError, WorkbenchNetworkError, WorkbenchProtocolError } from '../client/index.js';
import { DicomwebError } from '../dicomweb/index.js';
import type { ErrorInfo } from '../result/result.js';
import { retryableStatus, type Classified } from './retry.js';

/** Network trouble worth another attempt; an aborted call was stopped on purpose. */
const RETRY_NETWORK = new Set(['CONNECTION_REFUSED', 'CONNECTION_RESET', 'TIMEOUT', 'NETWORK_ERROR']);

/**
 * How the retry policy and the reports see an error thrown by a step. Decisions read codes
 * and statuses, never message text.
 */
export function classify(err: unknown): Classified {
  // An archive's calls were retried under the run's policy already, by the archive itself.
  if (err instanceof DicomwebError) return { ...classifyArchive(err), retryable: false };
  if (err instanceof WorkbenchApiError) {
    const info: ErrorInfo = {
      code: err.code,
      message: `${err.method} ${err.path}: HTTP ${err.status} ${err.code}: ${err.message}`,
      status: err.status,
      ...hintFor(err),
    };
    return {
      retryable: retryableStatus(err.status),
      ...(err.retryAfterMs !== null ? { retryAfterMs: err.retryAfterMs } : {}),
      info,
    };
  }
  if (err instanceof WorkbenchNetworkError) {
    // Calls are only aborted by the run's own signal: Ctrl-C (a step timeout wins its race first).
    if (err.code === 'ABORTED') return interrupted();
    return {
      retryable: RETRY_NETWORK.has(err.code),
      info: {
        code: err.code,
        message: `${err.method} ${err.path}: ${err.message}`,
        hint: 'check that the workbench is running and reachable at its URL',
      },
    };
  }
  if (err instanceof WorkbenchProtocolError) {
    return {
      retryable: false,
      info: { code: err.code, message: `${err.method} ${err.path}: ${err.message}`, status: err.status },
    };
  }
  if (err instanceof WorkbenchError) return { retryable: false, info: { code: err.code, message: err.message } };
  if (err instanceof Error) {
    const coded = err as Error & { code?: unknown; hint?: unknown };
    if (err.name === 'AbortError' || coded.code === 'INTERRUPTED') return interrupted();
    const code = typeof coded.code === 'string' ? coded.code : 'INTERNAL_ERROR';
    return {
      retryable: false,
      info: { code, message: err.message, ...(typeof coded.hint === 'string' ? { hint: coded.hint } : {}) },
    };
  }
  return { retryable: false, info: { code: 'INTERNAL_ERROR', message: String(err) } };
}

function hintFor(err: WorkbenchApiError): { hint?: string } {
  if (err.status === 401)
    return { hint: 'the workbench wants a token: pass --token-env NAME with the token in that environment variable' };
  if (err.status === 403)
    return {
      hint: 'the workbench refused this client or path: check its allowed directories and client access settings',
    };
  if (err.status === 404 && err.code === 'NODE_NOT_FOUND')
    return { hint: 'the node is gone: was it removed by an earlier step or in the workbench?' };
  return {};
}

/**
 * Whether an error may mean the workbench itself is gone or hung (as opposed to refusing one
 * request): the pool then asks it whether it still answers.
 */
export function mayBeWorkbenchLoss(info: ErrorInfo): boolean {
  return info.status === undefined && (RETRY_NETWORK.has(info.code) || info.code === 'STEP_TIMEOUT');
}

function interrupted(): Classified {
  return { retryable: false, info: { code: 'INTERRUPTED', message: 'the step was stopped: the run was interrupted' } };
}

/** How the retry policy sees an archive's error: the archive says what is worth another try. */
export function classifyArchive(err: unknown): Classified {
  if (!(err instanceof DicomwebError)) return classify(err);
  return {
    retryable: err.retryable,
    ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
    info: {
      code: err.code,
      message: err.message,
      ...(err.status !== undefined ? { status: err.status } : {}),
      ...(err.hint !== undefined ? { hint: err.hint } : {}),
    },
  };
}
