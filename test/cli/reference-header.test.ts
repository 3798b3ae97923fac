import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { cleanEnv, serverEnv, spawnCli, startServer, workspace } from "../conformance/pm/helpers.js";
import { closeWebServers, startForwardProxy } from "../helpers/web-servers.js";

/** `-H/--header "Name: Value"` as the reference CLI takes it: on every model request, whatever the wire. */
describe("-H / --header", () => {
  const wires = [
    {
      wire: "Anthropic Messages",
      model: "anthropic/claude-sonnet-5-5",
      extra: [] as string[],
      client: "Anthropic",
    },
    { wire: "OpenAI Responses", model: "openai/gpt-5.4", extra: [] as string[], client: "OpenAI" },
    {
      wire: "OpenAI Chat (a compatible server)",
      model: "openai-compatible/any",
      extra: ["--base-url"],
      client: "OpenAI",
    },
  ];
  for (const { wire, model, extra, client } of wires) {
    // The User-Agent is the official client's own, by its package name (the CLI's bundle minifies
    // class names, scripts/post-build.mjs).
    test(`every ${wire} request carries the headers, and the ${client} client's User-Agent`, async () => {
      const server = await startServer([
        reply().tool("Read", { file_path: "a.txt" }),
        reply().text("Read it."),
      ]);
      const env = { ...serverEnv(server), OPENAI_API_KEY: "test", OPENAI_BASE_URL: `${server.url}/v1` };
      const cli = spawnCli(
        [
          "-p",
          "Read a.txt",
          "--model",
          model,
          ...extra.flatMap((flag) => [flag, `${server.url}/v1`]),
          "-H",
          "X-Team: blue",
          "--header",
          "X-Trace-Id:  abc123 ",
        ],
        { cwd: workspace({ "a.txt": "a\n" }), env },
      );
      expect((await cli.exited).code).toBe(0);
      expect(cli.out.stdout).toBe("Read it.\n");
      expect(server.requests).toHaveLength(2);
      for (const request of server.requests) {
        expect(request.headers["x-team"]).toBe("blue");
        expect(request.headers["x-trace-id"]).toBe("abc123");
        expect(request.headers["user-agent"]).toMatch(new RegExp(`^${client}/JS \\d+\\.\\d+\\.\\d+`));
      }
    });
  }

  test("a header that is not `Name: Value` is a one-line usage error (exit 2) before anything runs", async () => {
    const server = await startServer([reply().text("never")]);
    for (const bad of ["no-colon", ": value", "Bad Name: x"]) {
      const cli = spawnCli(["-p", "hi", "-H", bad], { cwd: workspace(), env: serverEnv(server) });
      expect((await cli.exited).code).toBe(2);
      expect(cli.out.stderr).toBe(`cairn: --header takes "Name: Value", got "${bad}" (see cairn --help)\n`);
      expect(cli.out.stdout).toBe("");
    }
    expect(server.requests).toHaveLength(0);
  });

  test("a model that makes no HTTP request says once that the headers are not sent", async () => {
    const dir = workspace({
      "scenario.json": JSON.stringify({
        version: 1,
        steps: [{ content: [{ type: "text", text: "Replayed." }] }],
      }),
    });
    const cli = spawnCli(["-p", "hi", "--model", "replay:scenario.json", "-H", "X-Team: blue"], {
      cwd: dir,
      env: cleanEnv(),
    });
    expect((await cli.exited).code).toBe(0);
    expect(cli.out.stderr).toContain("extra headers (--header) are not sent: replay:scenario.json");
  });
});

describe("proxy variables", () => {
  test("proxy variables are used, not reported: a plain run through a proxy prints nothing on stderr", async () => {
    const server = await startServer([reply().text("Direct.")]);
    const proxy = await startForwardProxy();
    const env = { ...serverEnv(server), HTTPS_PROXY: proxy.url, http_proxy: proxy.url };
    const cli = spawnCli(["-p", "hi"], { cwd: workspace(), env });
    expect((await cli.exited).code).toBe(0);
    expect(cli.out.stdout).toBe("Direct.\n");
    expect(cli.out.stderr).toBe("");
    expect(server.requests).toHaveLength(1);
    expect(proxy.seen).toEqual([`127.0.0.1:${server.port}`]);
    await closeWebServers();
  });

  test("a proxy written host:port is an http proxy; a SOCKS one is said to be unused, once, and requests go directly", async () => {
    const server = await startServer([reply().text("Through."), reply().text("Direct.")]);
    const proxy = await startForwardProxy();
    const bare = spawnCli(["-p", "hi"], {
      cwd: workspace(),
      env: { ...serverEnv(server), HTTP_PROXY: proxy.url.replace("http://", "") },
    });
    expect((await bare.exited).code).toBe(0);
    expect(bare.out.stdout).toBe("Through.\n");
    expect(bare.out.stderr).toBe("");
    expect(proxy.seen).toEqual([`127.0.0.1:${server.port}`]);

    const socks = spawnCli(["-p", "hi"], {
      cwd: workspace(),
      env: { ...serverEnv(server), HTTPS_PROXY: "socks5://127.0.0.1:9" },
    });
    expect((await socks.exited).code).toBe(0);
    expect(socks.out.stdout).toBe("Direct.\n");
    expect(socks.out.stderr.split("\n").filter((line) => line.includes("not used"))).toEqual([
      expect.stringContaining(
        "HTTPS_PROXY=socks5://127.0.0.1:9 is not used: cairn reaches http and https proxies only",
      ),
    ]);
    await closeWebServers();
  });

  test("ALL_PROXY alone is said to be unused, once (cairn reads HTTPS_PROXY and HTTP_PROXY)", async () => {
    const server = await startServer([reply().text("Direct.")]);
    const env = { ...serverEnv(server), ALL_PROXY: "socks5://127.0.0.1:9" };
    const cli = spawnCli(["-p", "hi"], { cwd: workspace(), env });
    expect((await cli.exited).code).toBe(0);
    expect(cli.out.stdout).toBe("Direct.\n");
    const notes = cli.out.stderr.split("\n").filter((line) => line.includes("not used"));
    expect(notes).toEqual([
      expect.stringContaining("ALL_PROXY is not used: cairn reads HTTPS_PROXY and HTTP_PROXY"),
    ]);
  });
});
