import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { tempDir } from "../helpers/temp.js";
import { bareRepository } from "./git-fixtures.js";
import { PG_SKIP, pgTitle, runEnded, servingOnThrowawayPostgres } from "./helpers.js";

/**
 * `GET /v1/agents/{id}/artifacts`, `…/artifacts/download` and `GET /v1/repositories` as the
 * reference's clients use them (docs/serve.md, "Artifacts"): a list of `{path, sizeBytes,
 * updatedAt}`, a download URL that works without a key until it expires, and `{items: [{url}]}`.
 */
const serving = servingOnThrowawayPostgres();

describe.skipIf(PG_SKIP !== undefined)("v1's artifacts and repositories", { timeout: 180_000 }, () => {
  test(
    pgTitle(
      "a cloned agent's ended run lists its patch, its workspace and its report as artifacts; a download URL serves each without a key, and a tampered one is refused; /v1/repositories lists the key's repositories",
    ),
    async () => {
      const d = await serving.deploy({
        steps: [
          reply().tool("Write", { file_path: "notes.txt", content: "notes\n" }),
          reply().text("Written."),
        ],
      });
      d.startWorker("w1");
      const repo = bareRepository();
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "write notes" },
        repos: [{ url: repo.url, startingRef: "main" }],
        report: true,
      });
      const { agent, run } = created.json;
      expect((await runEnded(d, agent.id, run.id)).status).toBe("FINISHED");

      const listed = await d.request("GET", `/v1/agents/${agent.id}/artifacts`);
      expect(listed.status).toBe(200);
      const items = listed.json.items as { path: string; sizeBytes: number; updatedAt: string }[];
      expect(items.map((item) => item.path)).toEqual([
        `runs/${run.id}.workspace.json`,
        `runs/${run.id}.patch`,
        `runs/${run.id}.html`,
      ]);
      for (const item of items) {
        expect(item.sizeBytes).toBeGreaterThan(0);
        expect(Number.isNaN(Date.parse(item.updatedAt))).toBe(false);
      }

      // Each download URL, fetched as a client does (no key), gives the artifact: the same bytes
      // as the run's own endpoints.
      const download = async (path: string) => {
        const answer = await d.request(
          "GET",
          `/v1/agents/${agent.id}/artifacts/download?path=${encodeURIComponent(path)}`,
        );
        expect(answer.status).toBe(200);
        expect(Date.parse(answer.json.expiresAt)).toBeGreaterThan(Date.now());
        return answer.json.url as string;
      };
      const patchUrl = await download(`runs/${run.id}.patch`);
      const patch = await fetch(patchUrl);
      expect(patch.status).toBe(200);
      const patchText = await patch.text();
      expect(patchText).toContain("+notes");
      const direct = await fetch(`${d.api}/v1/agents/${agent.id}/runs/${run.id}/patch`, {
        headers: { authorization: `Bearer ${d.key}` },
      });
      expect(patchText).toBe(await direct.text());
      expect(Buffer.byteLength(patchText)).toBe(items[1]!.sizeBytes);
      const workspace = await (await fetch(await download(`runs/${run.id}.workspace.json`))).json();
      const own = await d.request("GET", `/v1/agents/${agent.id}/runs/${run.id}/workspace`);
      expect(workspace).toEqual(own.json);
      expect(workspace.branch).toBe(`cairn/${agent.id}`);
      const report = await fetch(await download(`runs/${run.id}.html`));
      expect(report.headers.get("content-type")).toContain("text/html");

      // A URL whose path or signature was changed is refused; an unknown path has no URL.
      const tampered = patchUrl.replace(".patch", ".html");
      expect((await fetch(tampered)).status).toBe(403);
      expect((await fetch(patchUrl.replace(/signature=[^&]+/, "signature=x"))).status).toBe(403);
      const unknown = await d.request(
        "GET",
        `/v1/agents/${agent.id}/artifacts/download?path=runs/none.patch`,
      );
      expect(unknown.status).toBe(404);

      // An agent worked in a directory has no artifacts; the repositories are the cloned ones.
      const inPlace = await d.request("POST", "/v1/agents", {
        prompt: { text: "hello" },
        repos: [{ url: tempDir("cairn-api-") }],
      });
      expect((await d.request("GET", `/v1/agents/${inPlace.json.agent.id}/artifacts`)).json).toEqual({
        items: [],
      });
      expect(await d.request("GET", "/v1/repositories")).toEqual({
        status: 200,
        json: { items: [{ url: repo.url }] },
      });
    },
  );
});
