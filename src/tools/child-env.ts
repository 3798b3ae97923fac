/** Provider credentials that must never reach a child process, whatever their names look like. */
const KNOWN_SECRET_NAMES = new Set([
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "OPENAI_ORG_ID",
  "OPENROUTER_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "AZURE_OPENAI_API_KEY",
  "MISTRAL_API_KEY",
  "GROQ_API_KEY",
  "DEEPSEEK_API_KEY",
  "XAI_API_KEY",
  "TOGETHER_API_KEY",
  "FIREWORKS_API_KEY",
  "COHERE_API_KEY",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "HF_TOKEN",
  "GITHUB_TOKEN",
  "GH_TOKEN",
]);

/** Names that look like they hold a credential. Deliberately broad: a missing variable is a small cost. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD/i;

/**
 * Variables that make a shell run or read something the permission checker does not see: start-up
 * files of nested shells (`BASH_ENV`, `ENV`), inherited shell options and functions (`SHELLOPTS`,
 * `BASHOPTS` can turn on `extglob`/`nullglob`, `BASH_FUNC_ls%%` redefines `ls`), and what changes
 * how words expand or where `cd` goes (`GLOBIGNORE`, `CDPATH`, `PS4` with `set -x`).
 */
const SHELL_STATE = new Set(["BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "GLOBIGNORE", "CDPATH", "PS4"]);

/**
 * git configuration every command gets, before any file's: a repository's config cannot run
 * programs through git (`core.fsmonitor`, `core.pager`, hooks), and git does not pick up bare
 * repositories it was not pointed at (a bare git dir the model wrote elsewhere). Not
 * `diff.external=`: git (2.39 at least) then runs "" for every `git diff` and fails; a repository
 * the model wrote is refused by the permission checker instead (its textconv and filters, which no
 * setting here could switch off, run programs just the same).
 */
export const GIT_CHILD_CONFIG: readonly (readonly [string, string])[] = [
  ["core.fsmonitor", ""],
  ["core.pager", "cat"],
  ["core.hooksPath", "/dev/null"],
  ["safe.bareRepository", "explicit"],
];

/**
 * A copy of `env` without variables that look like secrets, so commands the model runs cannot read
 * (and print, or send elsewhere) the agent's own credentials, without the shell state above, and
 * with `GIT_CHILD_CONFIG` appended to any `GIT_CONFIG_COUNT` list already there. Names in
 * `allowlist` are kept anyway.
 */
export function childEnvironment(env: NodeJS.ProcessEnv, allowlist: string[] = []): NodeJS.ProcessEnv {
  const keep = new Set(allowlist);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const gitConfigName = /^GIT_CONFIG_KEY_\d+$/.test(name);
    if (!keep.has(name) && !gitConfigName && (KNOWN_SECRET_NAMES.has(name) || SECRET_NAME.test(name)))
      continue;
    if (!keep.has(name) && (SHELL_STATE.has(name) || name.startsWith("BASH_FUNC_"))) continue;
    out[name] = value;
  }
  const first = Number.parseInt(out.GIT_CONFIG_COUNT ?? "0", 10) || 0;
  GIT_CHILD_CONFIG.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${first + i}`] = key;
    out[`GIT_CONFIG_VALUE_${first + i}`] = value;
  });
  out.GIT_CONFIG_COUNT = String(first + GIT_CHILD_CONFIG.length);
  return out;
}
