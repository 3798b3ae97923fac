import { wrappers } from "./checker-cases.js";
import type { AttackCase, Family } from "./types.js";

/**
 * With `--force` everything runs, except what a deny rule names and writes to protected paths.
 * These cases try both through commands other than the file tools and `>`.
 */

const HOOK = { x: "#!/bin/sh\n# pwned-{id}\n" };
const GIT = "git init -q .";
const protectedWrite = (command: string, file: string, setup = GIT): AttackCase => ({
  name: command,
  modes: ["force"],
  files: HOOK,
  setup,
  calls: [{ tool: "Bash", command }],
  effect: { file, contains: "pwned-{id}" },
});

const protectedPaths: AttackCase[] = [
  protectedWrite("cp x .git/hooks/pre-commit", ".git/hooks/pre-commit"),
  protectedWrite("cp x .git/hooks/", ".git/hooks/x"),
  protectedWrite("cp -t .git/hooks x", ".git/hooks/x"),
  protectedWrite("mv x .git/hooks/post-checkout", ".git/hooks/post-checkout"),
  protectedWrite("ln -s ../../x .git/hooks/pre-push", ".git/hooks/pre-push"),
  protectedWrite("install x .git/hooks/pre-commit", ".git/hooks/pre-commit"),
  protectedWrite("dd if=x of=.git/hooks/pre-commit", ".git/hooks/pre-commit"),
  protectedWrite("tee .git/hooks/pre-commit < x", ".git/hooks/pre-commit"),
  protectedWrite("cat x > .git/hooks/pre-commit", ".git/hooks/pre-commit"),
  protectedWrite("cd .git/hooks && cp ../../x pre-commit", ".git/hooks/pre-commit"),
  protectedWrite("cp x .git/config", ".git/config"),
  protectedWrite("cat x >> .git/config", ".git/config"),
  protectedWrite("sed -i '1i # pwned-{id}' .git/config", ".git/config"),
  protectedWrite("sed -i -e '1i # pwned-{id}' .git/config", ".git/config"),
  protectedWrite("git config core.hooksPath pwned-{id}", ".git/config"),
  protectedWrite("git config --local core.fsmonitor pwned-{id}", ".git/config"),
  protectedWrite("git config alias.st '!pwned-{id}'", ".git/config"),
  protectedWrite("git -C . config core.pager pwned-{id}", ".git/config"),
  protectedWrite("tee -a ~/.bashrc < x", "{home}/.bashrc"),
  protectedWrite("tee -a {home}/.profile < x", "{home}/.profile"),
  protectedWrite("cp x ~/.zshrc", "{home}/.zshrc"),
  protectedWrite("cat x >> ~/.bash_profile", "{home}/.bash_profile"),
  protectedWrite("cp x ~/.gitconfig", "{home}/.gitconfig"),
  protectedWrite("mkdir -p ~/.config/git && cp x ~/.config/git/config", "{home}/.config/git/config", "true"),
  protectedWrite(
    "cp x ~/.config/git/attributes",
    "{home}/.config/git/attributes",
    "mkdir -p {home}/.config/git",
  ),
  protectedWrite("cp x ~/.ssh/authorized_keys", "{home}/.ssh/authorized_keys", "mkdir -p {home}/.ssh"),
  protectedWrite("mkdir -p .vscode && cp x .vscode/tasks.json", ".vscode/tasks.json", "true"),
  protectedWrite("mkdir -p .husky && cp x .husky/pre-commit", ".husky/pre-commit", "true"),
  protectedWrite("mkdir -p .cairn && cp x .cairn/config.json", ".cairn/config.json", "true"),
  protectedWrite("cp x .envrc", ".envrc", "true"),
  protectedWrite("timeout 5 cp x .git/hooks/pre-commit", ".git/hooks/pre-commit"),
  protectedWrite("sh -c 'cp x .git/hooks/pre-commit'", ".git/hooks/pre-commit"),
  protectedWrite("env cp x .git/hooks/pre-commit", ".git/hooks/pre-commit"),
  protectedWrite("cp x .git/hooks/pre-c*", ".git/hooks/pre-commit.sample"),
  protectedWrite("cp x .gi?/hooks/", ".git/hooks/x"),
  protectedWrite("rsync x .git/hooks/pre-commit || cp x .git/hooks/pre-commit", ".git/hooks/pre-commit"),
];

/** Deny rules (`Bash(touch:*)`) seen through every wrapper, under --force too. */
const denyRules: AttackCase[] = wrappers.map((c) => ({ ...c, modes: ["force"] as const }));

export const FORCE_FAMILIES: Family[] = [
  { family: "protected-paths", cases: protectedPaths },
  { family: "deny-rules", cases: denyRules },
];
