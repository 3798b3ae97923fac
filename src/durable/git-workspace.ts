import { execFile } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Pool } from "pg";
import { randomUuid } from "../util/random-id.js";
import type { AgentRow } from "./database.js";
import { previousRunCommit } from "./run-workspaces.js";

/** What the API stored of an agent's git source (cairn.agent_options, src/serve/serve-schema.ts). */
type GitSource = { repository: string; ref: string | null; branch_name: string | null };

/** The author and committer of cairn's commits. */
export const CAIRN_IDENTITY = {
  GIT_AUTHOR_NAME: "cairn",
  GIT_AUTHOR_EMAIL: "cairn@localhost",
  GIT_COMMITTER_NAME: "cairn",
  GIT_COMMITTER_EMAIL: "cairn@localhost",
};

/** A sha (or its prefix): fetched by itself, which a shallow `clone --branch` cannot do. */
const SHA = /^[0-9a-f]{7,40}$/i;

/** Where a cloned agent works on this worker, its run branch, and the remote its checkpoints go to. */
export type PreparedWorkspace = { cwd: string; branch: string; remote: string | null };

export type WorkspaceSettings = {
  /** This worker's directory for agents' clones (`cairn worker --workspaces`); default: the API's choice. */
  workspaces?: string;
  /** Where checkpoints are pushed (`--workspace-remote`); default: the source when the agent asked for a branch. */
  remote?: string;
};

/**
 * Before an agent's run: the agent's workspace is the clone of its repository at its ref, made by
 * the worker that runs its first turn, or by any worker without a clone of it (shallow where git
 * can: a branch or tag, unless checkpoints go to a remote of their own, which needs the history).
 * The clone is made beside the workspace and renamed into place, so a worker killed mid-clone leaves
 * no half clone for the next one to trust. Its work goes on the run branch (`target.branchName`,
 * or `cairn/<agent id>`); when the agent has had a run before, the workspace is put at that run's
 * last checkpoint, fetched from the checkpoint remote when this machine's clone does not have it
 * (a clone that is behind, made by a worker on another machine). A failure is thrown with git's
 * message (without the credentials a URL may hold): the run ends ERROR with it.
 */
export async function prepareWorkspace(
  pool: Pool,
  agent: AgentRow,
  runId: string,
  env: NodeJS.ProcessEnv,
  settings: WorkspaceSettings = {},
): Promise<PreparedWorkspace | undefined> {
  // The database is read before git runs: a retry while it is away does nothing twice.
  const source = await gitSourceOf(pool, agent.id);
  if (!source) return undefined;
  const previous = await previousRunCommit(pool, agent.id, runId);
  const cwd = settings.workspaces ? join(settings.workspaces, agent.id) : agent.cwd;
  const branch = source.branch_name ?? `cairn/${agent.id}`;
  const remote = settings.remote ?? (source.branch_name ? source.repository : null);
  if (!existsSync(join(cwd, ".git"))) await cloneSource(source, cwd, branch, remote, env);
  if (previous) await checkOut({ cwd, branch, remote, env }, previous, "the agent's previous run");
  return { cwd, branch, remote };
}

async function cloneSource(
  source: GitSource,
  cwd: string,
  branch: string,
  remote: string | null,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  mkdirSync(dirname(cwd), { recursive: true });
  const scratch = `${cwd}.clone-${randomUuid()}`;
  try {
    const { repository, ref } = source;
    if (ref && SHA.test(ref)) {
      await git(env, dirname(scratch), ["clone", "--no-checkout", "--quiet", repository, scratch]);
      await git(env, scratch, ["checkout", "--quiet", "--detach", ref]);
    } else {
      // A remote of its own lacks the source's history: a shallow clone could not push to it.
      const shallow =
        (remote === null || remote === repository) &&
        (/^[a-z][a-z0-9+.-]*:\/\//i.test(repository) || repository.includes("@"));
      await git(env, dirname(scratch), [
        "clone",
        "--quiet",
        ...(shallow ? ["--depth", "1"] : []),
        ...(ref ? ["--branch", ref] : []),
        repository,
        scratch,
      ]);
    }
    await git(env, scratch, ["checkout", "--quiet", "-B", branch]);
    // A repository without a commit yet: the run branch starts from an empty one, so every
    // checkpoint (and the run's patch) has a commit to start from.
    if (!(await hasCommit(env, scratch, "HEAD")))
      await git({ ...env, ...CAIRN_IDENTITY }, scratch, [
        "commit",
        "--quiet",
        "--allow-empty",
        "--no-verify",
        "-m",
        "cairn: the repository had no commit",
      ]);
    rmSync(cwd, { recursive: true, force: true });
    renameSync(scratch, cwd);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Puts the workspace exactly at `sha` on its branch: tracked files as committed, untracked ones
 * removed (ignored files are not checkpointed and stay). A commit this clone lacks is fetched from
 * the remote's run branch; one that is in neither is an error naming it.
 */
export async function checkOut(
  workspace: { cwd: string; branch: string; remote: string | null; env: NodeJS.ProcessEnv },
  sha: string,
  what: string,
): Promise<void> {
  const { cwd, branch, remote, env } = workspace;
  const head = await git(env, cwd, ["rev-parse", "HEAD"]).catch(() => "");
  const dirty = (await git(env, cwd, ["status", "--porcelain"])).trim() !== "";
  const onBranch = (await git(env, cwd, ["rev-parse", "--abbrev-ref", "HEAD"])).trim() === branch;
  if (head.trim() === sha && !dirty && onBranch) return;
  if (!(await hasCommit(env, cwd, sha))) {
    if (!remote)
      throw new Error(
        `the workspace's checkpoint ${sha} (${what}) is not in this machine's clone, and no workspace remote is set to fetch it from (cairn worker --workspace-remote)`,
      );
    try {
      await git(env, cwd, ["fetch", "--quiet", remote, `+refs/heads/${branch}:refs/cairn/fetched`]);
    } catch (error) {
      throw new Error(
        `the workspace's checkpoint ${sha} (${what}) is not in this machine's clone and could not be fetched: ${(error as Error).message}`,
      );
    }
    if (!(await hasCommit(env, cwd, sha)))
      throw new Error(
        `the workspace's checkpoint ${sha} (${what}) is neither in this machine's clone nor on branch ${branch} of the workspace remote (its push failed?)`,
      );
  }
  await git(env, cwd, ["checkout", "--quiet", "--force", "-B", branch, sha]);
  await git(env, cwd, ["reset", "--quiet", "--hard", sha]);
  await git(env, cwd, ["clean", "--quiet", "-fd"]);
}

async function hasCommit(env: NodeJS.ProcessEnv, cwd: string, sha: string): Promise<boolean> {
  return git(env, cwd, ["cat-file", "-e", `${sha}^{commit}`]).then(
    () => true,
    () => false,
  );
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

/**
 * Runs git; never asks for credentials (a terminal prompt would hang the worker), and gives up on a
 * remote that does not answer within two minutes rather than holding the run.
 */
export function git(env: NodeJS.ProcessEnv, cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      args,
      {
        cwd,
        env: { ...env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "" },
        maxBuffer: 256 << 20,
        timeout: 120_000,
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const message = (stderr.trim() || error.message).replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, "$1");
        reject(new Error(`git ${args.find((arg) => !arg.startsWith("-")) ?? ""} failed: ${message}`));
      },
    );
  });
}
