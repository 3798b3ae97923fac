import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { hang, type RecordedRequest, reply } from "../../src/testing/index.js";
import { tempDir } from "../helpers/temp.js";
import { bareRepository, git } from "./git-fixtures.js";
import { type Deployment, PG_SKIP, pgTitle, servingOnThrowawayPostgres, sql, waitFor } from "./helpers.js";

/**
 * Workspaces that outlive workers (docs/serve.md): a run's workspace is committed on its run branch
 * and pushed to the workspace remote after each tool step, so a worker on another machine (here: a
 * worker with a `--workspaces` directory of its own) continues from the last checkpoint; a finished
 * run leaves its branch pushed and its patch.
 */
const serving = servingOnThrowawayPostgres();

/** An empty bare repository: the workspace remote every worker reaches. */
function emptyRemote(): string {
  const path = join(tempDir("cairn-remote-"), "checkpoints.git");
  execFileSync("git", ["init", "--quiet", "--bare", path]);
  return path;
}

const assistantTurns = (request: RecordedRequest) =>
  (request.body as { messages: { role: string }[] }).messages.filter((m) => m.role === "assistant").length;

/** Four file-changing steps (the third model call hangs once), then a follow-up that adds a file. */
function scenario() {
  let hung = false;
  return (request: RecordedRequest) => {
    const answered = assistantTurns(request);
    if (answered === 0) return reply().tool("Write", { file_path: "a.txt", content: "one\n" }, "toolu_1");
    if (answered === 1) return reply().tool("Write", { file_path: "b.txt", content: "two\n" }, "toolu_2");
    if (answered === 2 && !hung) {
      hung = true;
      return hang();
    }
    if (answered === 2)
      return reply().tool(
        "Edit",
        { file_path: "a.txt", old_string: "one", new_string: "one\nmore" },
        "toolu_3",
      );
    if (answered === 3) return reply().tool("Write", { file_path: "c.txt", content: "three\n" }, "toolu_4");
    if (answered === 4) return reply().text("Done.");
    if (answered === 5) return reply().tool("Write", { file_path: "d.txt", content: "four\n" }, "toolu_5");
    return reply().text("Done again.");
  };
}

const remoteFile = (remote: string, branch: string, file: string) =>
  git(remote, "--git-dir", remote, "show", `${branch}:${file}`);

const ended = (d: Deployment, runId: string) =>
  waitFor(`run ${runId} to end`, () => {
    const status = sql(d, `SELECT status FROM cairn.runs WHERE id = '${runId}'`)[0];
    return status === "FINISHED" || status === "ERROR" ? status : undefined;
  });

async function patchOf(
  d: Deployment,
  agentId: string,
  runId: string,
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${d.api}/v1/agents/${agentId}/runs/${runId}/patch`, {
    headers: { authorization: `Bearer ${d.key}` },
  });
  return { status: response.status, text: await response.text() };
}

describe.skipIf(PG_SKIP !== undefined)("workspaces that outlive workers", { timeout: 240_000 }, () => {
  test(
    pgTitle(
      "a worker SIGKILLed after two checkpoints: a worker on another machine fetches the run branch, continues from the last checkpoint and finishes; the remote's branch has every file, each edit once; the patch applies; a follow-up on the first machine's stale clone starts from the run's end",
    ),
    async () => {
      const d = await serving.deploy({ respond: scenario() });
      const source = bareRepository();
      const remote = emptyRemote();
      const machine1 = tempDir("cairn-machine1-");
      const machine2 = tempDir("cairn-machine2-");
      const flags = (dir: string) => [
        "--takeover-after",
        "1",
        "--workspaces",
        dir,
        "--workspace-remote",
        remote,
      ];
      d.startWorker("w1", flags(machine1));
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "write the files" },
        repos: [{ url: source.url, ref: "main" }],
      });
      expect(created.status).toBe(200);
      const agentId = created.json.agent.id as string;
      const runId = created.json.run.id as string;
      const branch = `cairn/${agentId}`;

      // w1 has made two file-changing steps and waits on the third model call: both are on the remote.
      await waitFor("the third model call", () => d.model.requests.length === 3 || undefined);
      expect(remoteFile(remote, branch, "a.txt")).toBe("one");
      expect(remoteFile(remote, branch, "b.txt")).toBe("two");
      const workspace = await d.request("GET", `/v1/agents/${agentId}/runs/${runId}/workspace`);
      expect(workspace.json).toMatchObject({
        branch,
        startCommit: source.mainSha,
        pushed: true,
        ended: false,
      });
      expect(workspace.json.commit).toBe(git(remote, "--git-dir", remote, "rev-parse", branch));
      expect((await patchOf(d, agentId, runId)).status).toBe(409);

      // Machine 2 has no clone of the agent; machine 1 dies and never comes back.
      d.startWorker("w2", flags(machine2));
      await d.killWorker("w1");
      expect(await ended(d, runId)).toBe("FINISHED");
      expect(sql(d, `SELECT executor_id FROM dbos.workflow_status WHERE workflow_uuid = '${runId}'`)).toEqual(
        ["w2"],
      );
      // Only the model call in flight was made again: each step's edit ran once.
      expect(d.model.requests.length).toBe(6);
      expect(remoteFile(remote, branch, "README.md")).toBe("# app");
      expect(remoteFile(remote, branch, "a.txt")).toBe("one\nmore");
      expect(remoteFile(remote, branch, "b.txt")).toBe("two");
      expect(remoteFile(remote, branch, "c.txt")).toBe("three");
      // One checkpoint commit per file-changing step, on top of the source's commit.
      expect(
        git(remote, "--git-dir", remote, "log", "--format=%s", `${source.mainSha}..${branch}`).split("\n"),
      ).toEqual(Array(4).fill("write the files"));
      const clone2 = join(machine2, agentId);
      expect(readFileSync(join(clone2, "a.txt"), "utf8")).toBe("one\nmore\n");
      expect(git(clone2, "status", "--porcelain")).toBe("");
      // Machine 1's clone stopped at the second checkpoint.
      expect(existsSync(join(machine1, agentId, "c.txt"))).toBe(false);

      // The patch: from the source's commit to the run's end, which git apply takes.
      const patch = await patchOf(d, agentId, runId);
      expect(patch.status).toBe(200);
      const check = tempDir("cairn-patch-");
      git(check, "clone", "--quiet", source.url, "app");
      writeFileSync(join(check, "run.patch"), patch.text);
      git(join(check, "app"), "apply", join(check, "run.patch"));
      expect(readFileSync(join(check, "app", "a.txt"), "utf8")).toBe("one\nmore\n");
      expect(readFileSync(join(check, "app", "c.txt"), "utf8")).toBe("three\n");
      expect((await d.request("GET", `/v1/agents/${agentId}/runs/${runId}/workspace`)).json).toMatchObject({
        pushed: true,
        ended: true,
        commit: git(remote, "--git-dir", remote, "rev-parse", branch),
      });

      // A follow-up on machine 1 again (w2 stopped): its clone is behind, and is brought to the run's end first.
      const w2 = d.workers.get("w2")!;
      const gone = new Promise((resolve) => w2.once("exit", resolve));
      w2.kill("SIGTERM");
      await gone;
      d.startWorker("w3", flags(machine1));
      const followUp = await d.request("POST", `/v1/agents/${agentId}/runs`, {
        prompt: { text: "one more" },
      });
      const followUpId = followUp.json.run.id as string;
      expect(await ended(d, followUpId)).toBe("FINISHED");
      expect(readFileSync(join(machine1, agentId, "c.txt"), "utf8")).toBe("three\n");
      expect(readFileSync(join(machine1, agentId, "a.txt"), "utf8")).toBe("one\nmore\n");
      expect(remoteFile(remote, branch, "d.txt")).toBe("four");
      const second = await patchOf(d, agentId, followUpId);
      expect(second.text).toContain("+++ b/d.txt");
      expect(second.text).not.toContain("c.txt");
    },
  );

  test(
    pgTitle(
      "a checkpoint push the remote refuses is reported on the run (pushError, pushed: false) and the run goes on to FINISHED, its patch kept",
    ),
    async () => {
      const d = await serving.deploy({
        steps: [
          reply().tool("Write", { file_path: "notes.txt", content: "notes\n" }),
          reply().text("Wrote."),
        ],
      });
      const source = bareRepository();
      const remote = emptyRemote();
      const hook = join(remote, "hooks", "pre-receive");
      writeFileSync(hook, "#!/bin/sh\necho 'checkpoints are refused here' >&2\nexit 1\n", { mode: 0o755 });
      d.startWorker("w1", ["--workspace-remote", remote]);
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "write notes" },
        repos: [{ url: source.url, ref: "main" }],
      });
      const agentId = created.json.agent.id as string;
      const runId = created.json.run.id as string;
      expect(await ended(d, runId)).toBe("FINISHED");
      const workspace = await d.request("GET", `/v1/agents/${agentId}/runs/${runId}/workspace`);
      expect(workspace.json).toMatchObject({ branch: `cairn/${agentId}`, pushed: false, ended: true });
      expect(workspace.json.pushError).toContain("checkpoints are refused here");
      expect(git(remote, "--git-dir", remote, "branch", "--list")).toBe("");
      const patch = await patchOf(d, agentId, runId);
      expect(patch.status).toBe(200);
      expect(patch.text).toContain("+notes");
    },
  );
  test(
    pgTitle(
      "a worker SIGKILLed in a shell command that wrote into the workspace, started again under its name: the workspace is put back at the checkpoint before the command, which is not run again",
    ),
    async () => {
      const outside = tempDir("cairn-outside-");
      const ledger = join(outside, "ledger.txt");
      const started = join(outside, "started.txt");
      const d = await serving.deploy({
        steps: [
          reply().tool("Write", { file_path: "a.txt", content: "one\n" }, "toolu_1"),
          reply().tool(
            "Bash",
            {
              command: `echo effect >> ${ledger} && echo half > half.txt && echo go > ${started} && sleep 30`,
            },
            "toolu_2",
          ),
          reply().text("Noted."),
        ],
      });
      const source = bareRepository();
      const remote = emptyRemote();
      const machine = tempDir("cairn-machine-");
      const flags = ["--workspaces", machine, "--workspace-remote", remote];
      d.startWorker("w1", flags);
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "record it" },
        repos: [{ url: source.url, ref: "main" }],
      });
      const agentId = created.json.agent.id as string;
      const runId = created.json.run.id as string;
      const clone = join(machine, agentId);
      await waitFor("the command to start", () => existsSync(started) || undefined);
      expect(readFileSync(join(clone, "half.txt"), "utf8")).toBe("half\n");
      await d.killWorker("w1");
      d.startWorker("w1", flags);
      expect(await ended(d, runId)).toBe("FINISHED");
      expect(readFileSync(ledger, "utf8")).toBe("effect\n");
      expect(existsSync(join(clone, "half.txt"))).toBe(false);
      expect(readFileSync(join(clone, "a.txt"), "utf8")).toBe("one\n");
      const branch = `cairn/${agentId}`;
      expect(git(remote, "--git-dir", remote, "ls-tree", "--name-only", branch).split("\n")).toEqual([
        "README.md",
        "a.txt",
      ]);
      expect((await patchOf(d, agentId, runId)).text).not.toContain("half.txt");
    },
  );
  test(
    pgTitle(
      "an agent on a repository without a commit yet: its work is checkpointed on a branch, and the patch holds it; an agent without a repository has no workspace or patch (404)",
    ),
    async () => {
      const d = await serving.deploy({
        steps: [
          reply().tool("Write", { file_path: "first.txt", content: "first\n" }),
          reply().text("Wrote."),
          reply().text("Plain."),
        ],
      });
      const empty = emptyRemote();
      d.startWorker("w1");
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "start it" },
        repos: [{ url: empty }],
      });
      const agentId = created.json.agent.id as string;
      const runId = created.json.run.id as string;
      expect(await ended(d, runId)).toBe("FINISHED");
      const workspace = await d.request("GET", `/v1/agents/${agentId}/runs/${runId}/workspace`);
      expect(workspace.json).toMatchObject({ branch: `cairn/${agentId}`, pushed: false, ended: true });
      expect(workspace.json.remote).toBeUndefined();
      expect((await patchOf(d, agentId, runId)).text).toContain("+first");
      // An agent without a repository has no git workspace: 404, not an empty patch.
      const plain = await d.request("POST", "/v1/agents", { prompt: { text: "plain" } });
      expect(await ended(d, plain.json.run.id)).toBe("FINISHED");
      expect((await patchOf(d, plain.json.agent.id, plain.json.run.id)).status).toBe(404);
      const none = await d.request(
        "GET",
        `/v1/agents/${plain.json.agent.id}/runs/${plain.json.run.id}/workspace`,
      );
      expect(none.status).toBe(404);
      expect(none.json.error.code).toBe("not_found");
    },
  );
});
