import { isIP } from 'node:net';
import { hostname as osHostname, networkInterfaces } from 'node:os';

/** `URL.hostname` keeps the brackets of an IPv6 literal; comparisons want the bare address. */
export function bareHost(urlHostname: string): string {
  return urlHostname
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.$/, '');
}

/**
 * Loopback as the security and proxy rules mean it: `localhost`, `127.0.0.0/8` and `::1`
 * (also in its IPv4-mapped forms, which `URL` normalizes to hex such as `::ffff:7f00:1`).
 */
export function isLoopback(urlHostname: string): boolean {
  const h = bareHost(urlHostname);
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) {
    if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(?:127\.\d+\.\d+\.\d+|7f[0-9a-f]{2}:[0-9a-f]{1,4})$/.exec(h);
    return mapped !== null;
  }
  return false;
}

/**
 * Whether the host is this machine, so a file path on our disk is also a path on the
 * workbench's disk (file-reference transfer): loopback, our host name, or one of our
 * interface addresses.
 */
export function isOwnMachine(urlHostname: string): boolean {
  if (isLoopback(urlHostname)) return true;
  const h = bareHost(urlHostname);
  if (h === osHostname().toLowerCase()) return true;
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.address.toLowerCase() === h) return true;
  }
  return false;
}
