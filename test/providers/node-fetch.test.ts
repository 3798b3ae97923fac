// The Anthropic client's transport over node:http (src/providers/node-fetch.ts), against the scripted
// model server over real HTTP: what the client and the provider rely on from `fetch`.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { isReadableStreamBody, LazyFormData, LightHeaders } from "../../src/providers/client-globals.js";
import { httpFetch, type NodeResponse, nodeFetch } from "../../src/providers/node-fetch.js";
import { reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { REPO } from "../conformance/pm/helpers.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const request = (extra: Record<string, unknown> = {}) => ({
  method: "post",
  headers: new LightHeaders({ "content-type": "application/json", "X-Api-Key": "k" }),
  body: JSON.stringify({
    model: "m",
    max_tokens: 10,
    stream: true,
    messages: [{ role: "user", content: "hi" }],
  }),
  ...extra,
});

async function readAll(response: NodeResponse): Promise<string> {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (let read = await reader.read(); !read.done; read = await reader.read())
    text += decoder.decode(read.value);
  return text;
}

// The transport itself. (This process may well have Node's fetch loaded: Node 22 and 24 load it
// when the test runner reads the globals' descriptors, and then nodeFetch hands requests to it.)
describe("httpFetch, the node:http transport", () => {
  test("sends method, headers and body; gives status, headers and the streamed body", async () => {
    server = await startScriptedServer({ steps: [reply().text("Hello there")] });
    const response = (await httpFetch(`${server.url}/v1/messages`, request())) as NodeResponse;
    expect(response.headers.constructor).toBe(LightHeaders);
    expect(response.ok).toBe(true);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/text\/event-stream/);
    const text = await readAll(response);
    expect(text).toContain("event: message_stop");
    expect(text).toContain("Hello");
    const received = server.requests[0]!;
    expect(received.method).toBe("POST");
    expect(received.headers["x-api-key"]).toBe("k");
    expect((received.body as { model: string }).model).toBe("m");
  });

  test("an error status is a response whose body reads whole as JSON", async () => {
    server = await startScriptedServer({ steps: [] });
    const response = (await httpFetch(`${server.url}/v1/messages`, request())) as NodeResponse;
    expect(response.ok).toBe(false);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(await response.json()).toMatchObject({ type: "error" });
    await expect(response.text()).rejects.toThrow(/already been read/);
  });

  test("an abort while the body streams ends the read with an AbortError", async () => {
    server = await startScriptedServer({ steps: [reply().text("slow").stall(2, 60_000)] });
    const controller = new AbortController();
    const response = (await httpFetch(
      `${server.url}/v1/messages`,
      request({ signal: controller.signal }),
    )) as NodeResponse;
    const reader = response.body.getReader();
    await reader.read();
    setTimeout(() => controller.abort(), 20);
    const error = await (async () => {
      for (;;) if ((await reader.read()).done) return undefined;
    })().catch((caught: unknown) => caught);
    expect((error as Error).name).toBe("AbortError");
  });

  test("an abort before the response rejects with an AbortError; an aborted signal sends nothing", async () => {
    server = await startScriptedServer({ steps: [reply().text("never")] });
    const controller = new AbortController();
    controller.abort();
    await expect(
      httpFetch(`${server.url}/v1/messages`, request({ signal: controller.signal })),
    ).rejects.toThrow(expect.objectContaining({ name: "AbortError" }));
    expect(server.requests).toHaveLength(0);
  });

  test("a refused connection rejects like fetch: TypeError('fetch failed') caused by ECONNREFUSED", async () => {
    const port = await freePort();
    const error = (await httpFetch(`http://127.0.0.1:${port}/v1/messages`, request()).catch(
      (e: unknown) => e,
    )) as Error & {
      cause?: { code?: string };
    };
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe("fetch failed");
    expect(error.cause?.code).toBe("ECONNREFUSED");
  });
});

describe("the client's stand-ins for Headers and FormData", () => {
  test("headers: case-insensitive, repeated names joined, name order, any init fetch accepts", () => {
    const headers = new LightHeaders([
      ["B-Name", "1"],
      ["a-name", "x"],
    ]);
    headers.append("b-name", "2");
    expect(headers.get("b-NAME")).toBe("1, 2");
    expect([...headers]).toEqual([
      ["a-name", "x"],
      ["b-name", "1, 2"],
    ]);
    expect([...new LightHeaders(new Headers({ Accept: "a" }))]).toEqual([["accept", "a"]]);
    expect([...new LightHeaders({ "X-List": ["1", "2"] })]).toEqual([["x-list", "1, 2"]]);
    // The client checks `instanceof Headers` on headers it is given: undici's count as headers too.
    expect(new Headers() instanceof LightHeaders).toBe(true);
    expect({ get: "not a function" } instanceof LightHeaders).toBe(false);
  });

  test("a ReadableStream body (or a subclass's) is recognised as one; a string or bytes body is not", () => {
    class Tagged extends ReadableStream<Uint8Array> {}
    expect(isReadableStreamBody(new ReadableStream())).toBe(true);
    expect(isReadableStreamBody(new Tagged())).toBe(true);
    expect(isReadableStreamBody("{}")).toBe(false);
    expect(isReadableStreamBody(new Uint8Array(2))).toBe(false);
    expect(isReadableStreamBody({ [Symbol.toStringTag]: "ReadableStream" })).toBe(false);
  });

  test("FormData: recognised by instanceof, and constructing one gives the real FormData", () => {
    const form = new LazyFormData() as unknown as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect(new FormData() instanceof LazyFormData).toBe(true);
    expect({} instanceof LazyFormData).toBe(false);
  });
});

describe("nodeFetch in a process that has not loaded Node's fetch", () => {
  test("sends over node:http and never loads undici (a fresh Node process, as the CLI is)", async () => {
    server = await startScriptedServer({ steps: [reply().text("Over node:http")] });
    const module = pathToFileURL(join(REPO, "dist/providers/node-fetch.js")).href;
    const script = `
      const { nodeFetch } = await import(${JSON.stringify(module)});
      const response = await nodeFetch(${JSON.stringify(`${server.url}/v1/messages`)}, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "k" },
        body: ${JSON.stringify(request().body)},
      });
      const text = await response.text();
      const undici = process.moduleLoadList.includes("NativeModule internal/deps/undici/undici");
      process.stdout.write(JSON.stringify({ headers: response.headers.constructor.name, text, undici }));`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    const code = await new Promise((resolve) => child.once("close", resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const seen = JSON.parse(stdout) as { headers: string; text: string; undici: boolean };
    expect(seen.headers).toBe("LightHeaders");
    expect(seen.text).toContain("Over");
    expect(seen.undici).toBe(false);
    expect(server.requests[0]!.headers["x-api-key"]).toBe("k");
  });
});

// Last in this file: it loads undici for good.
describe("nodeFetch once the host program uses Node's fetch", () => {
  test("requests go through the global fetch (and its dispatcher, which the host may have set)", async () => {
    server = await startScriptedServer({ steps: [reply().text("through fetch")] });
    void new Headers(); // loads undici, which installs its global dispatcher
    const response = (await nodeFetch(`${server.url}/v1/messages`, request())) as NodeResponse;
    expect(response.headers.constructor).not.toBe(LightHeaders);
    expect(response).toBeInstanceOf(Response);
    expect(await response.text()).toContain("through");
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address() as { port: number };
      probe.close(() => resolve(address.port));
    });
  });
}
