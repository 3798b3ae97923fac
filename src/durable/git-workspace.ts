import { execFile } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Pool } from "pg";
import { randomUuid } from "../util/random-id.js";
import type { AgentRow } from "./database.js";

/** What the API stored of an agent's git source (cairn.agent_options, src/serve/serve-schema.ts). */
type GitSource = { repository: string; ref: string | null; branch_name: string | null };

/** A sha (or its prefix): fetched by itself, which a shallow `clone --branch` cannot do. */
const SHA = /^[0-9a-f]{7,40}$/i;

/**
 * Before an agent's run: the agent's workspace is the clone of its repository at its ref, made by
 * the worker that runs its first turn (shallow where git can: a branch or tag). Follow-ups find the
 * clone there and reuse it. The clone is made beside the workspace and renamed into place, so a
 * worker killed mid-clone leaves no half clone for the next one to trust. A failure is thrown with
 * git's message (without the credentials a URL may hold): the run ends ERROR with it.
 */
export async function prepareWorkspace(pool: Pool, agent: AgentRow, env: NodeJS.ProcessEnv): Promise<void> {
  const source = await gitSourceOf(pool, agent.id);
  if (!source || existsSync(join(agent.cwd, ".git"))) return;
  mkdirSync(dirname(agent.cwd), { recursive: true });
  const scratch = `${agent.cwd}.clone-${randomUuid()}`;
  try {
    const { repository, ref } = source;
    if (ref && SHA.test(ref)) {
      await git(env, dirname(scratch), ["clone", "--no-checkout", "--quiet", repository, scratch]);
      await git(env, scratch, ["checkout", "--quiet", "--detach", ref]);
    } else {
      const shallow = /^[a-z][a-z0-9+.-]*:\/\//i.test(repository) || repository.includes("@");
      await git(env, dirname(scratch), [
        "clone",
        "--quiet",
        ...(shallow ? ["--depth", "1"] : []),
        ...(ref ? ["--branch", ref] : []),
        repository,
        scratch,
      ]);
    }
    if (source.branch_name) await git(env, scratch, ["checkout", "--quiet", "-b", source.branch_name]);
    rmSync(agent.cwd, { recursive: true, force: true });
    renameSync(scratch, agent.cwd);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}

/**
 * After a run of an agent that asked for a branch (`target.branchName`, or `autoCreatePr`): what
 * the run changed is committed on that branch of its clone. Nothing changed, nothing committed.
 */
export async function commitWorkspace(
  pool: Pool,
  agent: AgentRow,
  prompt: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const source = await gitSourceOf(pool, agent.id);
  if (!source?.branch_name || !existsSync(join(agent.cwd, ".git"))) return;
  const status = await git(env, agent.cwd, ["status", "--porcelain"]);
  if (status.trim() === "") return;
  await git(env, agent.cwd, ["add", "-A"]);
  const subject = prompt.split("\n")[0]!.slice(0, 72);
  await git(env, agent.cwd, [
    "-c",
    "user.name=cairn",
    "-c",
    "user.email=cairn@localhost",
    "commit",
    "--quiet",
    "--no-verify",
    "-m",
    subject || "cairn",
    "-m",
    `Committed by cairn serve for agent ${agent.id}.`,
  ]);
}

async function gitSourceOf(pool: Pool, agentId: string): Promise<GitSource | undefined> {
  // The API makes this table; a database whose agents were all made before it has none.
  const exists = await pool.query("SELECT to_regclass('cairn.agent_options') AS t");
  if (!exists.rows[0]?.t) return undefined;
  const result = await pool.query(
    "SELECT repository, ref, branch_name FROM cairn.agent_options WHERE agent_id = $1 AND clone",
    [agentId],
  );
  return result.rows[0] as GitSource | undefined;
}

/** Runs git; never asks for credentials (a terminal prompt would hang the worker). */
function git(env: NodeJS.ProcessEnv, cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      args,
      {
        cwd,
        env: { ...env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "" },
        maxBuffer: 16 << 20,
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const message = (stderr.trim() || error.message).replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, "$1");
        reject(new Error(`git ${args.find((arg) => !arg.startsWith("-")) ?? ""} failed: ${message}`));
      },
    );
  });
}
