import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { isLoopback } from './hosts.js';

export interface ProxyOptions {
  /** Use the environment's proxy settings for loopback targets too (default false). */
  proxyLoopback?: boolean;
  /** Where proxy variables are read from (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/**
 * The one dispatcher of a client. Timeouts are owned by the transport (its own deadline, so
 * that a timeout is reported as TIMEOUT with the configured value), so undici's own
 * header/body timers are switched off here.
 *
 * Proxies: a forward proxy usually cannot reach the caller's loopback (it answers 403), so
 * the environment's proxy is used only for remote hosts unless `proxyLoopback` is set.
 */
export function createDispatcher(target: URL, opts: ProxyOptions): Dispatcher {
  const agentOpts = { headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 4_000 };
  if (isLoopback(target.hostname) && opts.proxyLoopback !== true) return new Agent(agentOpts);
  const env = opts.env ?? process.env;
  const pick = (name: string): string => env[name.toLowerCase()] ?? env[name.toUpperCase()] ?? '';
  const httpProxy = pick('http_proxy');
  const httpsProxy = pick('https_proxy');
  if (httpProxy === '' && httpsProxy === '') return new Agent(agentOpts);
  // Explicit values (never undefined) so undici does not read process.env behind our back.
  // http:// targets are forwarded in absolute form rather than tunnelled: many proxies only
  // allow CONNECT to TLS ports, and a workbench usually listens on 8080-8099.
  const options = {
    ...agentOpts,
    httpProxy,
    httpsProxy: httpsProxy || httpProxy,
    noProxy: pick('no_proxy'),
    proxyTunnel: false,
  };
  return new EnvHttpProxyAgent(options as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);
}
