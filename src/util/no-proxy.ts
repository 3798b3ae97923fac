/**
 * Whether `NO_PROXY` (as curl and undici read it) names a host: entries separated by commas or
 * spaces; `*` names every host; `example.com`, `.example.com` and `*.example.com` name that domain
 * and every name below it; an entry with a port (`host:8080`) names that port only. IP addresses
 * match exactly (no CIDR ranges, as undici). Used where cairn decides itself whether a connection
 * goes through the user's proxy (the sandbox's proxy, src/sandbox/network-proxy.ts); cairn's own
 * requests leave that to undici's `EnvHttpProxyAgent`, which reads the same string the same way.
 */
export function bypassesProxy(noProxy: string, host: string, port: number): boolean {
  const name = bareHost(host);
  for (const raw of noProxy.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === "*") return true;
    const { entryHost, entryPort } = splitPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    const domain = entryHost.replace(/^\*?\./, "");
    if (!domain) continue;
    if (name === domain || name.endsWith(`.${domain}`)) return true;
  }
  return false;
}

function bareHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith("[") && name.endsWith("]")) name = name.slice(1, -1);
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

function splitPort(entry: string): { entryHost: string; entryPort?: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { entryHost: bracketed[1] ?? "", ...portOf(bracketed[2]) };
  // An IPv6 address without brackets has several colons and no port.
  if (entry.split(":").length > 2) return { entryHost: entry };
  const [entryHost = "", port] = entry.split(":");
  return { entryHost, ...portOf(port) };
}

function portOf(port: string | undefined): { entryPort?: number } {
  return port && /^\d+$/.test(port) ? { entryPort: Number(port) } : {};
}
