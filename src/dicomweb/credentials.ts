import { isLoopback } from '../client/hosts.js';
import { DicomwebError } from './errors.js';
import { archiveLabel } from './labels.js';
import type { Credentials } from './types.js';

/** The names of the variables that hold a login; each has a default. */
export interface CredentialNames {
  token_env?: string;
  user_env?: string;
  password_env?: string;
}

/**
 * Credentials from the environment: DICOMWEB_TOKEN (bearer) or DICOMWEB_USER + DICOMWEB_PASSWORD,
 * or the variable names given. A token wins over a user; a user without a password (or the
 * reverse) is no login, so nothing half-set is sent. Empty values count as unset.
 */
export function credentialsFromEnv(env: NodeJS.ProcessEnv, names: CredentialNames = {}): Credentials | undefined {
  const token = env[names.token_env ?? 'DICOMWEB_TOKEN'];
  if (token !== undefined && token !== '') return { kind: 'bearer', token };
  const user = env[names.user_env ?? 'DICOMWEB_USER'];
  const password = env[names.password_env ?? 'DICOMWEB_PASSWORD'];
  if (user !== undefined && user !== '' && password !== undefined && password !== '')
    return { kind: 'basic', user, password };
  return undefined;
}

/** The Authorization header's value. */
export function authorization(credentials: Credentials): string {
  if (credentials.kind === 'bearer') return `Bearer ${credentials.token}`;
  return `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`, 'utf8').toString('base64')}`;
}

/**
 * Refuses to send credentials in cleartext: over http:// they travel readable by anyone on the
 * way, which only loopback rules out. Checked before any connection is made.
 */
export function checkCleartext(url: URL, credentials: Credentials | undefined, allowInsecure: boolean): void {
  if (credentials === undefined || allowInsecure || url.protocol !== 'http:' || isLoopback(url.hostname)) return;
  throw new DicomwebError(
    'CLEARTEXT_CREDENTIALS',
    `credentials would travel unencrypted to the archive ${archiveLabel(url.href)}: use https://, or allow insecure credentials for this archive`,
    {
      retryable: false,
      hint: 'give the archive an https:// URL; plain http:// is accepted with credentials only on loopback',
    },
  );
}
