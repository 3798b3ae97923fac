/**
 * The bridge inside a sandboxed command's network namespace. bubblewrap's `--unshare-net` leaves the
 * command a loopback of its own and nothing else; the proxy (network-proxy.ts) is reached through
 * its unix socket, bound into the sandbox. This small node program, run by the node that runs cairn,
 * listens on a free loopback port of the namespace, forwards each connection to that socket, and
 * then starts the command with HTTP_PROXY / HTTPS_PROXY / ALL_PROXY (both cases) pointing at it. It
 * ends with the command, with the command's exit code or signal. (The reference's sandbox does
 * the same with two socat processes; node is always there where cairn runs, socat is not.)
 *
 * NO_PROXY names the namespace's own loopback: a server the command starts itself is reached
 * directly, as before.
 */
const BRIDGE_SOURCE = `
const net = require("node:net");
const { spawn } = require("node:child_process");
const [socketPath, file, ...args] = process.argv.slice(1);
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream).pipe(client);
  const end = () => { client.destroy(); upstream.destroy(); };
  client.on("error", end);
  upstream.on("error", end);
});
server.on("error", (error) => {
  process.stderr.write("cairn: the sandbox's network bridge failed: " + error.message + "\\n");
  process.exit(126);
});
server.listen(0, "127.0.0.1", () => {
  const proxy = "http://127.0.0.1:" + server.address().port;
  const env = { ...process.env };
  for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) {
    env[name] = proxy;
    env[name.toLowerCase()] = proxy;
  }
  env.NO_PROXY = env.no_proxy = "localhost,127.0.0.1,::1";
  env.NODE_USE_ENV_PROXY = "1";
  const child = spawn(file, args, { stdio: "inherit", env });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"])
    process.on(signal, () => child.kill(signal));
  child.on("error", (error) => {
    process.stderr.write("cairn: " + file + ": " + error.message + "\\n");
    process.exit(127);
  });
  child.on("exit", (code, signal) => {
    server.close();
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
});
`;

/** The argv that runs `argv` behind the bridge to the proxy at `socketPath`. */
export function bridgedArgv(nodePath: string, socketPath: string, argv: readonly string[]): string[] {
  return [nodePath, "-e", BRIDGE_SOURCE, "--", socketPath, ...argv];
}

/**
 * The node to run the bridge with: the one running cairn; undefined when cairn runs in a runtime
 * that is not node itself (Electron, Bun): then sandboxed commands keep no network at all.
 */
export function bridgeNode(
  versions: NodeJS.ProcessVersions = process.versions,
  execPath: string = process.execPath,
): string | undefined {
  const embedded = "electron" in versions || "bun" in versions;
  return embedded ? undefined : execPath;
}
