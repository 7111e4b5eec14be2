/**
 * The certificates an https:// archive is checked against. A hospital archive's certificate is
 * usually signed by the hospital's own CA, which the system's store holds (installed by IT) but
 * Node's bundled roots do not. Giving the TLS layer a `ca` list replaces Node's defaults, so the
 * list is made of all of them: Node's roots, the system's bundle, NODE_EXTRA_CA_CERTS and the
 * archive's own CA file.
 */
import { readFile } from 'node:fs/promises';
import { rootCertificates } from 'node:tls';
import { DicomwebError } from './errors.js';

/** Where Debian, Ubuntu, Alpine and Arch keep the system's bundle; Fedora's and SUSE's after. */
const SYSTEM_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
];

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Every trusted CA, PEM by PEM. A missing system bundle is normal (Windows, macOS: Node's roots
 * serve); a named file that cannot be read is an error the user must hear of, since the archive
 * would then fail with a certificate error that hides the cause.
 */
export async function trustedCertificates(
  env: NodeJS.ProcessEnv,
  caFile: string | undefined,
  label: string,
): Promise<string[]> {
  const ca = [...rootCertificates];
  for (const path of SYSTEM_BUNDLES) {
    const bundle = await readIfPresent(path);
    if (bundle !== undefined) {
      ca.push(bundle);
      break;
    }
  }
  for (const [what, path] of [
    ['NODE_EXTRA_CA_CERTS', env.NODE_EXTRA_CA_CERTS],
    ['the CA file', caFile],
  ] as const) {
    if (path === undefined || path === '') continue;
    const pem = await readIfPresent(path);
    if (pem === undefined)
      throw new DicomwebError(
        'ARCHIVE_UNREACHABLE',
        `${what} ${path} cannot be read, so the archive ${label} cannot be trusted`,
        { retryable: false, hint: 'check the path of the CA file' },
      );
    ca.push(pem);
  }
  return ca;
}
