import { WorkbenchApiError, WorkbenchError } from '../client/index.js';
import { classify } from './classify.js';
import type { Classified } from './retry.js';
import { withRetry } from './retry.js';
import type { RunContext } from './run-context.js';
import type { WorkbenchSlot } from './workbenches.js';

/** A workbench that cannot be reached at all: the run does not start. */
export class WorkbenchUnreachableError extends Error {
  readonly code = 'WORKBENCH_UNREACHABLE';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'WorkbenchUnreachableError';
  }
}

/**
 * Asks every workbench who it is, once, before any case starts, without retrying what would
 * fail the same way again. A workbench that cannot be reached (nothing listening, an unknown
 * host, TLS, a proxy) leaves the pool at once with one notice; when none is left, or a token is
 * refused (every case would fail alike), the run ends here with one message naming the URL and
 * what to check. A busy workbench (503, 429) is asked again under the retry policy; a slow one
 * is left to the run, whose pool drops it should it stop answering.
 */
export async function checkWorkbenches(run: RunContext): Promise<void> {
  const problems = await Promise.all(run.slots.map((slot) => check(run, slot)));
  const refused = problems.find((p) => p?.fatal);
  if (refused) throw refused.error;
  const unreachable = problems.filter((p) => p !== undefined);
  if (unreachable.length === run.slots.length && unreachable[0]) throw unreachable[0].error;
  run.slots.forEach((slot, i) => {
    const problem = problems[i];
    if (!problem) return;
    slot.dead = true;
    run.notice(`${problem.error.message}; that workbench leaves the pool before any case ran`);
  });
}

async function check(
  run: RunContext,
  slot: WorkbenchSlot,
): Promise<{ error: WorkbenchUnreachableError; fatal: boolean } | undefined> {
  const timeoutMs = Math.min(slot.client.timeoutMs, run.timeoutMs);
  try {
    const call = { timeoutMs, signal: run.signal };
    slot.info = await withRetry(run.retry, { classify: atStart, signal: run.signal }, () => slot.client.info(call));
    // `/info` is exempt from authentication; the file-access settings are not, so a refused
    // token shows here rather than in every case.
    await withRetry(run.retry, { classify: atStart, signal: run.signal }, () => slot.client.fileAccess(call));
    return undefined;
  } catch (err) {
    const error = describe(err, slot);
    return error ? { error, fatal: err instanceof WorkbenchApiError } : undefined;
  }
}

/** At the start only an answer that says "busy" or a reset connection is worth another try. */
function atStart(err: unknown): Classified {
  const c = classify(err);
  return err instanceof WorkbenchApiError || (err instanceof WorkbenchError && err.code === 'CONNECTION_RESET')
    ? c
    : { ...c, retryable: false };
}

function describe(err: unknown, slot: WorkbenchSlot): WorkbenchUnreachableError | undefined {
  const at = slot.label;
  if (err instanceof WorkbenchApiError) {
    if (err.status === 401) {
      if (slot.client.hasToken) {
        return new WorkbenchUnreachableError(
          `the workbench at ${at} refused the request: the API token was not accepted (HTTP 401); it came from ${slot.tokenSource ?? "the run's options"}`,
          'check that this variable holds the token the workbench shows in its REST settings',
        );
      }
      return new WorkbenchUnreachableError(
        `the workbench at ${at} refused the request: it wants an API token and none was given (HTTP 401)`,
        "set WORKBENCH_TOKEN to the token, or name another variable with --token-env NAME (or the playbook's workbench.token: ${env.NAME})",
      );
    }
    if (err.status === 403)
      return new WorkbenchUnreachableError(
        `the workbench at ${at} refused this client (HTTP 403)`,
        "check the workbench's REST settings: the clients it accepts",
      );
    return undefined;
  }
  if (!(err instanceof WorkbenchError)) return undefined;
  switch (err.code) {
    case 'CONNECTION_REFUSED':
      return new WorkbenchUnreachableError(
        `nothing answers at ${at}: the connection was refused`,
        "start the workbench with its REST server enabled and check the URL's port (or leave out the URL to run on the embedded reference workbench)",
      );
    case 'DNS_FAILURE':
      return new WorkbenchUnreachableError(
        `the host of ${at} is not known (DNS lookup failed)`,
        'check the host name in the URL',
      );
    case 'TLS_FAILURE':
      return new WorkbenchUnreachableError(
        `no TLS connection could be made to ${at}`,
        "check https:// against http:// and the server's certificate (NODE_EXTRA_CA_CERTS names a private CA)",
      );
    case 'PROXY_FAILURE':
      return new WorkbenchUnreachableError(
        `the proxy refused the connection to ${at}`,
        'check HTTPS_PROXY, HTTP_PROXY and NO_PROXY (a loopback workbench needs no proxy)',
      );
    default:
      return undefined;
  }
}
