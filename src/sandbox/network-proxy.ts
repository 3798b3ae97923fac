import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { importPackage } from "../util/import-package.js";
import { upstreamProxyFor } from "../util/network-proxy.js";
import { type DomainPolicy, domainRefusal } from "./domain-policy.js";

/**
 * The proxy sandboxed commands reach the network through, when a domain list is set: an HTTP proxy
 * (CONNECT tunnels, and absolute-URI HTTP requests; proxy-chain) in cairn's own process, on a
 * loopback port, and a unix socket forwarding to it in a directory only this user can enter (the
 * proxy library serves TCP only). The sandbox binds that socket in, and a bridge inside the
 * command's network namespace (network-bridge.ts) turns it into a loopback port for the command's
 * HTTP_PROXY: the layout of the reference's sandbox, with node where it runs socat. A host the
 * policy refuses gets a 403 whose body names it and says how to allow it. A connection it admits goes
 * through the user's own proxy (HTTPS_PROXY / HTTP_PROXY or the config's `proxy`) unless NO_PROXY
 * names the host: behind a corporate proxy the allowed hosts are reached the way cairn reaches its
 * model (src/util/network-proxy.ts).
 *
 * It starts with the first command that needs it, and lives as long as the run: `close()` ends it
 * and removes its directory; being part of cairn's process, it ends with it however cairn ends.
 * It never keeps cairn running (its server is unref'd).
 */
export type SandboxProxy = {
  readonly policy: DomainPolicy;
  /** Starts the proxy once; the path of its socket. */
  start(): Promise<string>;
  /** The socket's path once `start()` has resolved. */
  readonly socketPath: string | undefined;
  close(): Promise<void>;
};

/** The header the refusal carries (the reference's sandbox proxy sends the same). */
export const REFUSED_HEADER = "X-Proxy-Error";

export function sandboxProxy(policy: DomainPolicy): SandboxProxy {
  let starting: Promise<string> | undefined;
  let socketPath: string | undefined;
  let stop: (() => Promise<void>) | undefined;
  let closed = false;
  return {
    policy,
    get socketPath() {
      return socketPath;
    },
    start() {
      if (closed) return Promise.reject(new Error("the run's network proxy has been closed"));
      starting ??= listen(policy).then((started) => {
        socketPath = started.socketPath;
        stop = started.close;
        return started.socketPath;
      });
      return starting;
    },
    async close() {
      closed = true;
      await starting?.catch(() => undefined);
      await stop?.();
    },
  };
}

async function listen(policy: DomainPolicy): Promise<{ socketPath: string; close(): Promise<void> }> {
  // Loaded only by a run whose sandboxed commands use a domain list, and kept out of the CLI's bundle
  // (scripts/post-build.mjs, LOADED_ON_USE): print mode's start-up stays as it is.
  const { Server, RequestError } = await importPackage<typeof import("proxy-chain")>("proxy-chain");
  const dir = mkdtempSync(path.join(os.tmpdir(), "cairn-net-"));
  const socketPath = path.join(dir, "proxy.sock");
  const server = new Server({
    port: 0,
    host: "127.0.0.1",
    verbose: false,
    prepareRequestFunction: ({ hostname, port, isHttp }) => {
      const refusal = refusalMessage(hostname, policy);
      // proxy-chain tells its errors by `name`, which the CLI's minified bundle would rename.
      if (refusal)
        throw Object.assign(new RequestError(refusal, 403, { [REFUSED_HEADER]: "blocked-by-allowlist" }), {
          name: "RequestError",
        });
      const upstreamProxyUrl = upstreamProxyFor(hostname, port, !isHttp);
      return upstreamProxyUrl ? { upstreamProxyUrl } : {};
    },
  });
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const connections = new Set<net.Socket>();
  const forwarder = net.createServer((client) => {
    const upstream = net.connect(server.port, "127.0.0.1");
    for (const socket of [client, upstream]) {
      connections.add(socket);
      socket.on("close", () => connections.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  try {
    await server.listen();
    await new Promise<void>((resolve, reject) => {
      forwarder.once("error", reject);
      forwarder.listen(socketPath, () => {
        forwarder.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await server.close(true).catch(() => undefined);
    removeDir();
    throw error;
  }
  // Neither keeps cairn running: they serve the run's commands, which cairn waits for anyway.
  server.server.unref();
  forwarder.unref();
  return {
    socketPath,
    async close() {
      // Open tunnels are cut: the commands that used them have ended with the run.
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => forwarder.close(() => resolve()));
      await server.close(true).catch(() => undefined);
      removeDir();
    },
  };
}

/** Why the proxy refuses `host`, for the command's user to read; undefined when it is allowed. */
export function refusalMessage(host: string, policy: DomainPolicy): string | undefined {
  const why = domainRefusal(host, policy);
  return why === undefined ? undefined : `cairn's sandbox refused the connection to ${host}: ${why}.\n`;
}
