import { CAIRN_IDENTITY, checkOut, git } from "./git-workspace.js";

/** What the run's "workspace" step records: the branch, the remote, and the commit the run starts from. */
export type WorkspacePlan = { branch: string; remote: string | null; startSha: string };

/** A checkpoint, as a tool step records it: its commit, and whether it reached the remote. */
export type Checkpoint = { sha: string; pushed: boolean; pushError?: string };

/** What DurableSteps asks of the workspace around its steps (src/durable/durable-steps.ts). */
export interface StepWorkspace {
  /** Before the first step this execution runs itself: the workspace at the last recorded checkpoint. */
  sync(): Promise<void>;
  /** After a tool step ran: its changes committed and pushed. */
  checkpoint(): Promise<Checkpoint>;
  /** A tool step's recorded checkpoint (replayed or just made): where the workspace now is. */
  recorded(checkpoint: Checkpoint): void;
}

export type WorkspaceCheckpointsOptions = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  plan: WorkspacePlan;
  /** The commits' subject (the prompt's first line) and body. */
  subject: string;
  body: string;
  /** Each checkpoint made, for the run's record (`cairn.run_workspaces`). */
  onCheckpoint: (checkpoint: Checkpoint) => Promise<void>;
  /**
   * Whether this execution still drives the run: a worker stalled past the takeover delay, whose run
   * another worker took over, must not push its step's commit over the live worker's branch.
   */
  stillDrives?: () => Promise<boolean>;
  /** A push that failed: said on the worker's stderr (once), beside the run's record. */
  onPushError: (message: string) => void;
};

/**
 * The run's workspace, checkpointed after each tool step that changed it: its changes are committed
 * on the run branch and pushed (forced: a step re-run after a crash replaces a commit pushed by the
 * execution that died) to the workspace remote, and the tool step records the commit beside its
 * outcome, so the step's record and the branch agree. An execution that resumes the run — on this
 * machine or another — replays the recorded steps, and before the first step it runs itself puts
 * the workspace at the last recorded checkpoint (fetched from the remote where this clone lacks
 * it): the step in flight when the worker died runs again on the workspace as it was before it.
 */
export class WorkspaceCheckpoints implements StepWorkspace {
  private expected: string;
  private synced = false;
  /** The last checkpoint did not reach the remote: the next one pushes again, whatever it changed. */
  private unpushed: string | undefined;
  private warned = false;

  constructor(private readonly options: WorkspaceCheckpointsOptions) {
    this.expected = options.plan.startSha;
  }

  async sync(): Promise<void> {
    if (this.synced) return;
    const { cwd, env, plan } = this.options;
    await checkOut(
      { cwd, env, branch: plan.branch, remote: plan.remote },
      this.expected,
      "the run's last completed step",
    );
    this.synced = true;
  }

  recorded(checkpoint: Checkpoint): void {
    this.expected = checkpoint.sha;
    this.unpushed = checkpoint.pushed || !this.options.plan.remote ? undefined : checkpoint.sha;
  }

  async checkpoint(): Promise<Checkpoint> {
    const { cwd, env } = this.options;
    const changed = (await git(env, cwd, ["status", "--porcelain"])).trim() !== "";
    if (!changed && this.unpushed === undefined)
      return { sha: this.expected, pushed: this.options.plan.remote !== null };
    // Its step's record would be refused too: this execution records and pushes nothing more.
    if (this.options.stillDrives && !(await this.options.stillDrives()))
      throw new Error("another worker took this run over: its checkpoint is not made here");
    let sha = this.expected;
    if (changed) {
      await git(env, cwd, ["add", "-A"]);
      await git(this.identity(), cwd, [
        "commit",
        "--quiet",
        "--no-verify",
        "-m",
        this.options.subject || "cairn",
        "-m",
        this.options.body,
      ]);
      sha = (await git(env, cwd, ["rev-parse", "HEAD"])).trim();
    }
    const checkpoint = await this.push(sha);
    this.recorded(checkpoint);
    await this.options.onCheckpoint(checkpoint);
    return checkpoint;
  }

  /** After the run's last step: what is left uncommitted (a cancelled step's edits) is checkpointed too. */
  async finish(): Promise<{ sha: string; patch: string }> {
    await this.sync();
    const { cwd, env, plan } = this.options;
    await this.checkpoint();
    const patch = await git(env, cwd, ["diff", "--binary", plan.startSha, this.expected]);
    return { sha: this.expected, patch };
  }

  private async push(sha: string): Promise<Checkpoint> {
    const { cwd, env, plan } = this.options;
    if (!plan.remote) return { sha, pushed: false };
    try {
      await git(env, cwd, ["push", "--quiet", "--force", plan.remote, `${sha}:refs/heads/${plan.branch}`]);
      return { sha, pushed: true };
    } catch (error) {
      const message = (error as Error).message.replace(/\s*[\r\n]+\s*/g, " ").trim();
      // Said once per execution on stderr; the run's record keeps the latest failure.
      if (!this.warned) this.options.onPushError(message);
      this.warned = true;
      return { sha, pushed: false, pushError: message };
    }
  }

  private identity(): NodeJS.ProcessEnv {
    return { ...this.options.env, ...CAIRN_IDENTITY };
  }
}
