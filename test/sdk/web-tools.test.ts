import { afterEach, describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { closeWebServers, startWebSite } from "../helpers/web-servers.js";
import { cleanUp, init, result, runQuery, users } from "./helpers.js";

afterEach(async () => {
  await cleanUp();
  await closeWebServers();
});

describe("the web tools in the SDK", () => {
  test("WebFetch and WebSearch are in system/init; WebFetch's tool_use_result is the convention's WebFetchOutput", async () => {
    const site = await startWebSite();
    const url = `${site.url}/notes.txt`;
    const { messages } = await runQuery(
      [
        reply().tool("WebFetch", { url, prompt: "Count the stones" }, "toolu_web"),
        reply().text("42 stones."),
      ],
      { allowedTools: ["WebFetch(domain:127.0.0.1)"] },
    );
    expect(init(messages).tools).toEqual(expect.arrayContaining(["WebFetch", "WebSearch"]));
    expect(result(messages)).toMatchObject({ subtype: "success", result: "42 stones." });
    const output = users(messages)[0]!.tool_use_result as Record<string, unknown>;
    expect(output).toMatchObject({ url, code: 200, codeText: "OK", bytes: 22 });
    expect(output.result).toContain("plain notes: stones 42");
    expect(typeof output.durationMs).toBe("number");
  });
});
