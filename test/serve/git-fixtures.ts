import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { tempDir } from "../helpers/temp.js";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();

/**
 * A bare repository on disk (reached as file://, no network) with `README.md` on `main` and a
 * `release` branch that adds `RELEASE.md`; its sha of main's commit too.
 */
export function bareRepository(): { url: string; path: string; mainSha: string } {
  const work = tempDir("cairn-git-work-", { "README.md": "# app\n" });
  git(work, "init", "--quiet", "-b", "main");
  git(work, "add", "-A");
  git(work, "commit", "--quiet", "-m", "first");
  const mainSha = git(work, "rev-parse", "HEAD");
  git(work, "checkout", "--quiet", "-b", "release");
  execFileSync("sh", ["-c", "echo v1 > RELEASE.md"], { cwd: work });
  git(work, "add", "-A");
  git(work, "commit", "--quiet", "-m", "release");
  git(work, "checkout", "--quiet", "main");
  const path = join(tempDir("cairn-git-bare-"), "app.git");
  git(work, "clone", "--quiet", "--bare", work, path);
  return { url: `file://${path}`, path, mainSha };
}

export { git };
