/**
 * ssh's ProxyCommand (`node -e … -- <host> <port>`): a CONNECT tunnel to host:port through the
 * proxy in HTTPS_PROXY, then stdin and stdout through it. A refusal prints the proxy's answer (the
 * policy's message) on stderr and exits 255, ssh's own code for a connection that failed.
 */
const SSH_CONNECT_SOURCE = `
const net = require("node:net");
const [host, port] = process.argv.slice(1);
const proxy = new URL(process.env.HTTPS_PROXY);
const fail = (text) => { process.stderr.write(text.endsWith("\\n") ? text : text + "\\n"); process.exit(255); };
const socket = net.connect(Number(proxy.port), proxy.hostname, () =>
  socket.write("CONNECT " + host + ":" + port + " HTTP/1.1\\r\\nHost: " + host + ":" + port + "\\r\\n\\r\\n"));
socket.on("error", (error) => fail("cairn: the sandbox's proxy: " + error.message));
let head = Buffer.alloc(0);
const onHead = (chunk) => {
  head = Buffer.concat([head, chunk]);
  const end = head.indexOf("\\r\\n\\r\\n");
  if (end === -1) return;
  socket.off("data", onHead);
  const lines = head.subarray(0, end).toString().split("\\r\\n");
  const rest = head.subarray(end + 4);
  if (/^HTTP\\/1\\.[01] 200/.test(lines[0])) {
    if (rest.length > 0) process.stdout.write(rest);
    process.stdin.pipe(socket);
    socket.pipe(process.stdout);
    socket.on("end", () => process.exit(0));
    return;
  }
  let body = rest.toString();
  const told = () => fail(body.trim() || "cairn's sandbox refused the connection to " + host + " (" + lines[0] + ")");
  socket.on("data", (more) => { body += more; });
  socket.on("end", told);
  socket.on("close", told);
};
socket.on("data", onHead);
`;

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
 *
 * git over SSH (`git@host:repo`) has no proxy variable to read: the bridge sets GIT_SSH_COMMAND to
 * ssh with a ProxyCommand (SSH_CONNECT_SOURCE, run by the same node) that opens a CONNECT tunnel
 * through the proxy, so SSH reaches an allowed host and a refused one fails with the proxy's
 * message, naming the host and how to allow it (docs/security.md, "Network policy").
 */
const BRIDGE_SOURCE = `
const SSH_CONNECT = ${JSON.stringify(SSH_CONNECT_SOURCE)};
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
  env.CAIRN_SSH_CONNECT = SSH_CONNECT;
  const connect = "'" + process.execPath + "' -e 'eval(process.env.CAIRN_SSH_CONNECT)' -- %h %p";
  env.GIT_SSH_COMMAND = (env.GIT_SSH_COMMAND || "ssh") + ' -o ProxyCommand="' + connect + '"';
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
