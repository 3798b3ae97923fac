/**
 * Outbound HTTP(S) through the user's proxy: `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` (either case),
 * or the config's `proxy` / `noProxy`, which override them (docs/config.md, "Proxies and
 * certificates"). Every connection cairn makes goes through here when a proxy is set: the model
 * clients (src/providers/node-fetch.ts), MCP over HTTP/SSE and the web tools.
 *
 * undici's `EnvHttpProxyAgent` does the work (CONNECT tunnels for https, `NO_PROXY` matching). It is
 * loaded on the first request made while a proxy is set, never otherwise, so a run without proxy
 * variables starts as before. Certificates: the agent passes no `ca` of its own, so TLS to the proxy
 * and through its tunnel trusts Node's default roots plus `NODE_EXTRA_CA_CERTS` (which Node reads
 * once, when the process starts).
 */

import { importPackage } from "./import-package.js";
import { bypassesProxy } from "./no-proxy.js";

export type ProxySettings = {
  /** A proxy URL for every request (`http://host:port`), or `off`: none, whatever the environment says. */
  proxy?: string;
  /** Hosts reached directly, as `NO_PROXY` writes them (`localhost,.internal,10.0.0.1`). */
  noProxy?: string;
};

/** What the agent is built from: absent when no proxy applies. */
export type ResolvedProxy = { httpProxy?: string; httpsProxy?: string; noProxy: string };

let configured: ProxySettings = {};
/** The environment of the run that set the settings (the entry's; nothing here reads the process's). */
let configuredEnv: NodeJS.ProcessEnv = {};
let agent: { key: string; dispatcher: Promise<unknown> } | undefined;

/**
 * The config's override and the run's environment (set once the run's config is read); `{}`
 * leaves it to the environment's variables.
 */
export function setProxySettings(settings: ProxySettings, env: NodeJS.ProcessEnv): void {
  configured = { ...settings };
  configuredEnv = env;
}

function variable(env: NodeJS.ProcessEnv, name: string): string | undefined {
  // Lower case first, as curl and undici read them.
  const value = env[name.toLowerCase()]?.trim() || env[name.toUpperCase()]?.trim();
  return value || undefined;
}

/**
 * A proxy URL as curl reads one: `host:port` without a scheme is an http proxy. Undefined for a
 * scheme cairn cannot use (socks…) or no URL at all; `unusableProxies` names those.
 */
function proxyUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  try {
    const url = new URL(withScheme);
    return url.protocol === "http:" || url.protocol === "https:" ? withScheme : undefined;
  } catch {
    return undefined;
  }
}

/** The proxy settings that are set but cannot be used, each as `NAME=value`, for a warning. */
export function unusableProxies(env: NodeJS.ProcessEnv = configuredEnv): string[] {
  const found: string[] = [];
  const proxy = configured.proxy?.trim();
  if (proxy && proxy !== "off" && !proxyUrl(proxy)) found.push(`the config's proxy ${proxy}`);
  if (proxy) return found;
  for (const name of ["https_proxy", "http_proxy"]) {
    const value = variable(env, name);
    if (value && !proxyUrl(value)) found.push(`${name.toUpperCase()}=${value}`);
  }
  return found;
}

/** The proxies in force for this process: the config's, else the environment's; none: undefined. */
export function resolvedProxy(env: NodeJS.ProcessEnv = configuredEnv): ResolvedProxy | undefined {
  const proxy = configured.proxy?.trim();
  if (proxy === "off") return undefined;
  const noProxy = configured.noProxy ?? variable(env, "no_proxy") ?? "";
  if (proxy) {
    const url = proxyUrl(proxy);
    return url ? { httpProxy: url, httpsProxy: url, noProxy } : undefined;
  }
  const httpProxy = proxyUrl(variable(env, "http_proxy"));
  const httpsProxy = proxyUrl(variable(env, "https_proxy")) ?? httpProxy;
  if (!httpProxy && !httpsProxy) return undefined;
  return { ...(httpProxy ? { httpProxy } : {}), ...(httpsProxy ? { httpsProxy } : {}), noProxy };
}

/**
 * The user's proxy a connection to `host:port` goes through, or undefined when none applies (no
 * proxy set, or `NO_PROXY` names the host). `tunnel`: a CONNECT tunnel (https, and whatever else
 * tunnels) takes the https proxy; a plain http request the http proxy. For the sandbox's proxy,
 * which chains the connections it admits to the user's proxy (src/sandbox/network-proxy.ts).
 */
export function upstreamProxyFor(host: string, port: number, tunnel: boolean): string | undefined {
  const proxy = resolvedProxy();
  if (!proxy || bypassesProxy(proxy.noProxy, host, port)) return undefined;
  return tunnel ? (proxy.httpsProxy ?? proxy.httpProxy) : (proxy.httpProxy ?? proxy.httpsProxy);
}

type Undici = typeof import("undici");
type UndiciFetch = (input: string | URL, init: Record<string, unknown>) => Promise<Response>;

/**
 * `fetch` through the proxy in force, else `undefined` (the caller sends the request its own way).
 * The agent is built once per setting and kept, so connections to the proxy are reused.
 */
export function proxiedFetch(): UndiciFetch | undefined {
  const proxy = resolvedProxy();
  if (!proxy) return undefined;
  const key = JSON.stringify(proxy);
  if (agent?.key !== key) {
    agent = {
      key,
      dispatcher: importPackage<Undici>("undici").then(
        ({ EnvHttpProxyAgent }) =>
          // An empty NO_PROXY is passed as is, so the agent does not read the environment again.
          new EnvHttpProxyAgent({
            httpProxy: proxy.httpProxy,
            httpsProxy: proxy.httpsProxy,
            noProxy: proxy.noProxy,
          }),
      ),
    };
  }
  const dispatcher = agent.dispatcher;
  return async (input, init) => {
    const [{ fetch }, resolved] = await Promise.all([importPackage<Undici>("undici"), dispatcher]);
    return fetch(input, { ...init, dispatcher: resolved } as never) as unknown as Response;
  };
}

/**
 * `fetch` for cairn's own requests (MCP transports, the web tools): through the proxy when one is
 * set, else Node's `fetch`.
 */
export function networkFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
  const viaProxy = proxiedFetch();
  if (viaProxy) return viaProxy(input, init as Record<string, unknown>);
  return globalThis.fetch(input, init);
}
