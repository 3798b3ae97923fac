import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import net from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { findOnPath } from "../../src/tools/process-group.js";
import { MODEL, runCli, serverEnv, spawnCli, startServer, workspace } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import { closeWebServers, startForwardProxy } from "../helpers/web-servers.js";
import { cleanUp, result, runQuery, users } from "../sdk/helpers.js";
import { needsSandbox, pathWithoutBwrap, runBash, sandboxUnavailable } from "./sandbox-helpers.js";

/**
 * The sandbox's network policy (docs/security.md, "Network policy"): with `--sandbox-allow-domain`,
 * sandboxed commands reach the allowed hosts, and only them, through cairn's proxy. Two web servers
 * stand on loopback aliases (127.0.0.2 allowed, 127.0.0.3 not: Linux routes all of 127/8 to the
 * loopback, no root needed), and a sandboxed curl asks both; each test has its control.
 */
const SANDBOXED = ["--sandbox", "enabled", "--force"];
const ALLOWED = "127.0.0.2";
const REFUSED = "127.0.0.3";

const curl = await findOnPath("curl", process.env.PATH ?? "");
const needsCurl = curl ? "" : " (SKIPPED: curl is not installed)";
const ssh = await findOnPath("ssh", process.env.PATH ?? "");
const git = await findOnPath("git", process.env.PATH ?? "");
const needsSsh = ssh && git ? "" : " (SKIPPED: ssh or git is not installed)";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
  await closeWebServers();
  await cleanUp();
});

/** A web server on `host` answering `hello from <host>`, and the paths it was asked for. */
async function webServer(host: string): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? "");
    response.end(`hello from ${host}\n`);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { url: `http://${host}:${address.port}/page`, requests };
}

/**
 * curl printing the body, the status (and the proxy's answer to CONNECT) and its exit code; `tunnel`
 * makes it go through a CONNECT tunnel, as HTTPS does.
 */
const curlOf = (url: string, tunnel = false) =>
  `curl -sS ${tunnel ? "--proxytunnel " : ""}-w ' status=%{http_code} connect=%{http_connect}' ${url} 2>&1; echo " exit=$?"`;

describe.skipIf(sandboxUnavailable !== undefined || !curl)(
  `the sandbox's network policy${needsSandbox}${needsCurl}`,
  () => {
    test("an allowed host is reached, another is refused with a 403 that names it and says how to allow it, under --force", async () => {
      const allowed = await webServer(ALLOWED);
      const refused = await webServer(REFUSED);
      const command = `${curlOf(allowed.url)}; ${curlOf(refused.url)}`;
      const run = await runBash(command, [...SANDBOXED, "--sandbox-allow-domain", ALLOWED]);
      expect(run.code).toBe(0);
      expect(run.output).toContain(`hello from ${ALLOWED}`);
      expect(run.output).toContain(`cairn's sandbox refused the connection to ${REFUSED}`);
      expect(run.output).toContain(`--sandbox-allow-domain ${REFUSED}`);
      expect(run.output).toContain("status=403");
      expect(allowed.requests).toEqual(["/page"]);
      expect(refused.requests).toEqual([]);
      expect(run.stderr).toBe("");

      // Control: without the list the sandbox has no network, and without the sandbox curl reaches both.
      const closed = await runBash(command, SANDBOXED);
      expect(closed.output).not.toContain("hello from");
      const open = await runBash(command, ["--sandbox", "disabled", "--force"]);
      expect(open.output).toContain(`hello from ${REFUSED}`);
      expect(refused.requests).toEqual(["/page"]);
    });

    test("CONNECT tunnels (what HTTPS uses) obey the list too", async () => {
      const allowed = await webServer(ALLOWED);
      const refused = await webServer(REFUSED);
      const command = `${curlOf(allowed.url, true)}; ${curlOf(refused.url, true)}`;
      const run = await runBash(command, [
        ...SANDBOXED,
        "--sandbox-allow-domain",
        "*.example.org",
        "--sandbox-allow-domain",
        ALLOWED,
      ]);
      expect(run.output).toContain(`hello from ${ALLOWED}`);
      // curl reports a refused tunnel by the proxy's status and exit code 56, without the body.
      expect(run.output).toMatch(/CONNECT tunnel failed, response 403/);
      expect(run.output).toMatch(/connect=403 exit=56/);
      expect(allowed.requests).toEqual(["/page"]);
      expect(refused.requests).toEqual([]);
    });

    test("SDK sandbox.network: allowedDomains admit, deniedDomains refuse even an allowed host, naming the rule", async () => {
      const allowed = await webServer(ALLOWED);
      const refused = await webServer(REFUSED);
      const { messages } = await runQuery(
        [
          reply().tool("Bash", { command: `${curlOf(allowed.url)}; ${curlOf(refused.url)}` }),
          reply().text("done"),
        ],
        {
          permissionMode: "bypassPermissions",
          sandbox: {
            enabled: true,
            network: { allowedDomains: [ALLOWED, REFUSED], deniedDomains: [REFUSED] },
          },
        },
      );
      expect(result(messages).subtype).toBe("success");
      const output = JSON.stringify(users(messages).map((message) => message.message.content));
      expect(output).toContain(`hello from ${ALLOWED}`);
      expect(output).toContain(`refused the connection to ${REFUSED}: it matches the denied domain`);
      expect(allowed.requests).toEqual(["/page"]);
      expect(refused.requests).toEqual([]);
    });

    test("config: the user file's sandbox.network lists apply, a project file may only add denied domains", async () => {
      const allowed = await webServer(ALLOWED);
      const refused = await webServer(REFUSED);
      const home = tempDir("cairn-net-home-");
      writeFileSync(
        join(home, "config.json"),
        JSON.stringify({ sandbox: { network: { allowedDomains: [ALLOWED, REFUSED] } } }),
      );
      const project = { sandbox: { network: { deniedDomains: [REFUSED], allowedDomains: ["127.0.0.4"] } } };
      const dir = workspace({ ".cairn/config.json": JSON.stringify(project) });
      const run = await runBash(`${curlOf(allowed.url)}; ${curlOf(refused.url)}`, SANDBOXED, {
        dir,
        env: { CAIRN_HOME: home },
      });
      expect(run.output).toContain(`hello from ${ALLOWED}`);
      expect(run.output).toContain(`refused the connection to ${REFUSED}: it matches the denied domain`);
      expect(refused.requests).toEqual([]);
      expect(run.stderr).toMatch(
        /sandbox\.network\.allowedDomains ignored \(a project config may only restrict/,
      );
    });

    test("a project command hook (the workspace's own code, under the sandbox) obeys the list too", async () => {
      const allowed = await webServer(ALLOWED);
      const refused = await webServer(REFUSED);
      const command = `{ ${curlOf(allowed.url)}; ${curlOf(refused.url)}; } > hook-output.txt`;
      const hooks = { hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command }] }] } };
      const run = await runCli({
        files: { ".claude/settings.json": JSON.stringify(hooks) },
        steps: [reply().text("Hi.")],
        args: ["--output-format", "json", "--trust", ...SANDBOXED, "--sandbox-allow-domain", ALLOWED],
      });
      expect(run.code).toBe(0);
      const output = readFileSync(join(run.dir, "hook-output.txt"), "utf8");
      expect(output).toContain(`hello from ${ALLOWED}`);
      expect(output).toContain(`cairn's sandbox refused the connection to ${REFUSED}`);
      expect(refused.requests).toEqual([]);
    });

    test("behind a corporate proxy (HTTPS_PROXY / HTTP_PROXY), allowed connections go through it, refused ones never reach it, NO_PROXY hosts go direct", async () => {
      const allowed = await webServer(ALLOWED);
      const refused = await webServer(REFUSED);
      const upstream = await startForwardProxy();
      const allowedHost = new URL(allowed.url).host;
      const command = `${curlOf(allowed.url, true)}; ${curlOf(allowed.url)}; ${curlOf(refused.url, true)}`;
      // The model server is on 127.0.0.1: NO_PROXY keeps cairn's own model calls off the proxy.
      const proxyEnv = { HTTPS_PROXY: upstream.url, HTTP_PROXY: upstream.url, NO_PROXY: "127.0.0.1" };
      const run = await runBash(command, [...SANDBOXED, "--sandbox-allow-domain", ALLOWED], {
        env: proxyEnv,
      });
      expect(run.output.match(new RegExp(`hello from ${ALLOWED}`, "g"))).toHaveLength(2);
      expect(run.output).toMatch(/connect=403 exit=56/);
      // The tunnel as a CONNECT, the plain request as an absolute-URI request: both to the allowed host.
      expect(upstream.seen).toEqual([allowedHost, allowedHost]);
      expect(refused.requests).toEqual([]);
      expect(run.stderr).toBe("");

      // Control: NO_PROXY naming the allowed host sends it direct, the upstream sees nothing.
      const direct = await runBash(
        curlOf(allowed.url, true),
        [...SANDBOXED, "--sandbox-allow-domain", ALLOWED],
        {
          env: { ...proxyEnv, NO_PROXY: `127.0.0.1,${ALLOWED}` },
        },
      );
      expect(direct.output).toContain(`hello from ${ALLOWED}`);
      expect(upstream.seen).toHaveLength(2);
    });

    test.skipIf(!ssh || !git)(
      `git over SSH goes through the proxy: an allowed host is reached, a refused one fails naming it and how to allow it${needsSsh}`,
      async () => {
        // An SSH server's first words: enough to see ssh arrive (key exchange then fails, as expected).
        const greeted: string[] = [];
        const sshServer = net.createServer((socket) => {
          socket.write("SSH-2.0-cairn-test\r\n");
          socket.once("data", (chunk) => {
            greeted.push(chunk.toString().split("\r\n")[0] ?? "");
            socket.destroy();
          });
        });
        await new Promise<void>((resolve) => sshServer.listen(0, ALLOWED, resolve));
        const port = (sshServer.address() as net.AddressInfo).port;
        try {
          const command = `git ls-remote ssh://git@${ALLOWED}:${port}/repo.git 2>&1; git ls-remote ssh://git@${REFUSED}:${port}/repo.git 2>&1`;
          const run = await runBash(command, [...SANDBOXED, "--sandbox-allow-domain", ALLOWED]);
          expect(greeted).toHaveLength(1);
          expect(greeted[0]).toMatch(/^SSH-2\.0-/);
          expect(run.output).toContain(`cairn's sandbox refused the connection to ${REFUSED}`);
          expect(run.output).toContain(`--sandbox-allow-domain ${REFUSED}`);
        } finally {
          sshServer.close();
        }
      },
    );

    test("the proxy ends with the run: nothing of it is left behind", async () => {
      const allowed = await webServer(ALLOWED);
      const tmp = tempDir("cairn-net-tmp-");
      const run = await runBash(curlOf(allowed.url), [...SANDBOXED, "--sandbox-allow-domain", ALLOWED], {
        env: { TMPDIR: tmp },
      });
      expect(run.output).toContain(`hello from ${ALLOWED}`);
      expect(readdirSync(tmp).filter((name) => name.startsWith("cairn-net-"))).toEqual([]);
    });

    test("the proxy's directory goes also when cairn is interrupted (SIGINT) during a command", async () => {
      const allowed = await webServer(ALLOWED);
      const tmp = tempDir("cairn-net-tmp-");
      const server = await startServer([
        reply().tool("Bash", { command: `${curlOf(allowed.url)}; sleep 60` }),
        reply().text("never reached"),
      ]);
      const cli = spawnCli(["-p", "Hi", "--model", MODEL, ...SANDBOXED, "--sandbox-allow-domain", ALLOWED], {
        cwd: workspace(),
        env: { ...serverEnv(server), TMPDIR: tmp },
      });
      await until(() => allowed.requests.length === 1);
      expect(readdirSync(tmp).filter((name) => name.startsWith("cairn-net-"))).toHaveLength(1);
      cli.child.kill("SIGINT");
      expect((await cli.exited).code).toBe(130);
      expect(readdirSync(tmp).filter((name) => name.startsWith("cairn-net-"))).toEqual([]);
    });
  },
);

/** Waits, without a deadline of its own (the test's timeout is the limit), for `condition`. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("the network policy where it cannot hold", () => {
  test("--sandbox-allow-domain with --sandbox-network is a usage error (exit 2)", async () => {
    const run = await runCli({
      args: ["--sandbox-network", "--sandbox-allow-domain", "example.com"],
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--sandbox-allow-domain limits the network that --sandbox-network opens/);
    expect(run.stdout).toBe("");
  });

  test("a pattern that is not a domain is a usage error naming it (exit 2)", async () => {
    const run = await runCli({ args: ["--sandbox-allow-domain", "https://example.com/x"] });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--sandbox-allow-domain: "https:\/\/example.com\/x" is a URL/);
  });

  test("a config pattern that is not a domain is an error naming the file and entry (exit 2)", async () => {
    const home = tempDir("cairn-net-home-");
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ sandbox: { network: { allowedDomains: ["*.com"] } } }),
    );
    const run = await runCli({ env: { CAIRN_HOME: home } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${join(home, "config.json")}: sandbox.network.allowedDomains.0:`);
    expect(run.stderr).toMatch(/covers a whole top-level domain/);
    expect(run.stdout).toBe("");
  });

  test("with the sandbox off, stderr says once that the domain list is not enforced", async () => {
    const run = await runBash("echo ran", ["--sandbox", "disabled", "--sandbox-allow-domain", "example.com"]);
    expect(run.code).toBe(0);
    expect(run.output).toContain("ran");
    const lines = run.stderr.split("\n").filter((line) => line.includes("domain list"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/the sandbox is off, so the network domain list .* is not enforced/);
  });

  test("without bubblewrap, stderr says once that the domain list is not enforced", async () => {
    const bin = await pathWithoutBwrap();
    const run = await runBash("echo ran", ["--sandbox-allow-domain", "example.com"], { env: { PATH: bin } });
    expect(run.code).toBe(0);
    const lines = run.stderr.split("\n").filter((line) => line.includes("domain list"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/bubblewrap \(bwrap\) is not installed.*domain list .* is not enforced/);
  });
});
