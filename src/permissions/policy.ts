import { accessSync, constants, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { ToolDeclaration, ToolKind } from "../tools/types.js";
import {
  checkContainment,
  containingRoot,
  isInside,
  PathResolutionError,
  protectedPath,
  type ResolvedPath,
  resolvePhysical,
} from "./paths.js";
import { type CompiledPathRule, compilePathRule, type MatchWord, matchShell } from "./rules.js";
import { parseShell, type ShellCommandPart, type ShellPart, type ShellWord } from "./shell.js";
import {
  expandCommandWords,
  lineMayCreateFiles,
  pathCandidates,
  patternsUnknown,
} from "./shell-expansion.js";
import {
  type ArgChecker,
  checkReadOnlyCommand,
  type GitStart,
  gitStartDirs,
  gitWritesConfig,
  OPTIONS_ONLY,
} from "./shell-readonly.js";
import type { PermissionMode, PermissionRule, PermissionVerdict, RuleBehavior } from "./types.js";

/** A list of words written as one string. */
const list = (words: string): string[] => words.split(/\s+/).filter(Boolean);

/**
 * The decisions themselves, as pure-ish functions of a tool call and a `PolicyContext` (they read
 * the file system to resolve paths, nothing else). Order everywhere: deny rules, then what the mode
 * forbids (plan), then ask rules, then protected paths, then allow rules, then the mode's defaults.
 */

export type PolicyContext = {
  mode: PermissionMode;
  /** Real paths of the workspace and every additional directory. */
  roots: string[];
  /** Directory relative paths resolve against (the workspace). */
  cwd: string;
  home: string;
  cairnHome: string;
  rules: CompiledRules;
  /** The PATH tool children run with: a listed command found inside the workspace is not trusted. */
  searchPath?: string;
  /** How to tell the user to lift the restriction (`use --force`). */
  forceHint: string;
};

type CompiledRule = { rule: PermissionRule; path?: CompiledPathRule };
export type CompiledRules = Record<RuleBehavior, CompiledRule[]>;

export function compileRules(
  rules: readonly PermissionRule[],
  workspace: string,
  home: string,
): CompiledRules {
  const compiled: CompiledRules = { allow: [], deny: [], ask: [] };
  for (const rule of rules) {
    compiled[rule.behavior].push({
      rule,
      ...(rule.target.kind === "path" ? { path: compilePathRule(rule, { workspace, home }) } : {}),
    });
  }
  return compiled;
}

/** Bare rule names that cover a whole family of tools, by the kind the tools declare. */
const RULE_NAMES_BY_KIND: Partial<Record<ToolKind, ReadonlySet<string>>> = {
  read: new Set(["Read"]),
  edit: new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]),
};

// ---------------------------------------------------------------------------------------------------
// Verdict helpers
// ---------------------------------------------------------------------------------------------------

function byRule(
  behavior: RuleBehavior,
  rule: PermissionRule,
  extra: Partial<PermissionVerdict> = {},
): PermissionVerdict {
  const what =
    behavior === "deny"
      ? `denied by rule ${rule.text} (${rule.source})`
      : behavior === "ask"
        ? `rule ${rule.text} (${rule.source}) requires approval for this call`
        : `allowed by rule ${rule.text} (${rule.source})`;
  return { behavior, message: what, rule, ...extra };
}

const ALLOW: PermissionVerdict = { behavior: "allow", message: "allowed" };

const RANK: Record<RuleBehavior, number> = { allow: 0, ask: 1, deny: 2 };

/** The strictest of several verdicts (deny over ask over allow); the first one of that rank. */
export function strictest(verdicts: readonly PermissionVerdict[]): PermissionVerdict {
  let worst: PermissionVerdict = verdicts[0] ?? ALLOW;
  for (const verdict of verdicts) if (RANK[verdict.behavior] > RANK[worst.behavior]) worst = verdict;
  return worst;
}

/**
 * Whether a tool-level (bare) rule names this tool. `Read` covers every tool declaring kind `read`,
 * `Edit`/`Write` every tool declaring kind `edit`.
 */
function toolRuleMatches(rule: PermissionRule, tool: ToolDeclaration): boolean {
  const target = rule.target;
  const toolName = tool.name;
  if (target.kind === "tool") {
    if (target.tool === toolName || tool.aliases?.includes(target.tool)) return true;
    const kind = tool.effects?.kind;
    return kind !== undefined && RULE_NAMES_BY_KIND[kind]?.has(target.tool) === true;
  }
  if (target.kind === "opaque") return target.tool === toolName;
  if (target.kind === "mcp") {
    const prefix = `mcp__${target.server}__`;
    if (target.tool === undefined) return toolName.startsWith(prefix) || toolName === `mcp__${target.server}`;
    return toolName === `${prefix}${target.tool}`;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------
// Tool calls
// ---------------------------------------------------------------------------------------------------

/**
 * Decides one tool call (without asking anyone) from what the tool declares (`ToolEffects`): the
 * command of an `execute` tool goes to the shell check, declared paths to the path checks, and a
 * tool that declares nothing checkable (or nothing at all) needs a rule or approval.
 */
export function evaluateToolCall(
  tool: ToolDeclaration,
  input: Record<string, unknown>,
  ctx: PolicyContext,
): PermissionVerdict {
  const { name, effects } = tool;
  /** The shell check decides what an `execute` tool's command does. */
  const shell = effects?.kind === "execute" && effects.command ? effects : undefined;
  for (const { rule } of ctx.rules.deny) if (toolRuleMatches(rule, tool)) return byRule("deny", rule);
  // A question to the user is the user's to answer: no mode or allow rule answers it.
  if (effects?.asksUser)
    return {
      behavior: "ask",
      message:
        effects.asksUser === "exit-plan"
          ? `${name} asks to leave plan mode`
          : `${name} asks the user a question`,
    };
  // Plan mode runs read-only tools and the shell's read-only commands; it cannot know what any other
  // tool does, so nothing else runs there, rules or not.
  if (ctx.mode === "plan" && !effects?.readOnly && !shell)
    return { behavior: "deny", message: `plan mode is read-only: ${name} is not allowed` };
  for (const { rule } of ctx.rules.ask) if (toolRuleMatches(rule, tool)) return byRule("ask", rule);
  // Content the gate cannot interpret (`WebFetch(domain:x)`) can deny or ask, never allow.
  const bareAllow = ctx.rules.allow.find(
    ({ rule }) => rule.target.kind !== "opaque" && toolRuleMatches(rule, tool),
  )?.rule;

  if (shell) return evaluateShellCommand(shell.command?.(input), ctx);
  const verdicts: PermissionVerdict[] = [];
  if (effects?.paths) {
    const paths = effects.paths(input, ctx.cwd);
    if ("uncheckable" in paths)
      return { behavior: ctx.mode === "bypassPermissions" ? "allow" : "ask", message: paths.uncheckable };
    for (const p of paths) verdicts.push(evaluatePath(p.access, name, p.path, ctx, bareAllow));
  } else if (!effects?.readOnly) {
    // It changes something it does not describe.
    verdicts.push(needsApproval(name, ctx, bareAllow));
  }
  if (effects?.network) verdicts.push(needsApproval(name, ctx, bareAllow, "reaches the network"));
  return strictest(verdicts);
}

/** The verdict for what only a rule naming the tool, approval or `bypassPermissions` allows. */
function needsApproval(
  name: string,
  ctx: PolicyContext,
  bareAllow: PermissionRule | undefined,
  why = "needs approval",
): PermissionVerdict {
  if (bareAllow) return byRule("allow", bareAllow);
  if (ctx.mode === "bypassPermissions") return { behavior: "allow", message: "allowed (bypassPermissions)" };
  return {
    behavior: "ask",
    message: `${name} ${why}; allow it with a rule like ${name} or ${ctx.forceHint}`,
    suggestions: [name],
  };
}

/** Decides reading or writing one path given to a file tool. */
export function evaluatePath(
  access: "read" | "write",
  toolName: string,
  rawPath: string,
  ctx: PolicyContext,
  bareAllow?: PermissionRule,
): PermissionVerdict {
  const check = checkContainment(rawPath, { cwd: ctx.cwd, roots: ctx.roots, home: ctx.home });
  return decidePath(
    access,
    toolName,
    rawPath,
    check.candidates,
    check.contained,
    check.error,
    ctx,
    bareAllow,
  );
}

function decidePath(
  access: "read" | "write",
  toolName: string,
  display: string,
  candidates: readonly ResolvedPath[],
  contained: boolean,
  error: string | undefined,
  ctx: PolicyContext,
  bareAllow?: PermissionRule,
): PermissionVerdict {
  const forms = candidates.flatMap((c) => [c.lexical, c.real]);
  const reals = candidates.map((c) => c.real);
  const shown = reals[0] ?? display;
  const applies = (compiled: CompiledPathRule) =>
    compiled.access === access && (!compiled.tools || compiled.tools.includes(toolName));
  for (const { rule, path: compiled } of ctx.rules.deny)
    if (compiled && applies(compiled) && forms.some(compiled.broad))
      return byRule("deny", rule, { path: shown });
  if (access === "write" && ctx.mode === "plan")
    return {
      behavior: "deny",
      message: `plan mode is read-only: writing ${shown} is not allowed`,
      path: shown,
    };
  for (const { rule, path: compiled } of ctx.rules.ask)
    if (compiled && applies(compiled) && forms.some(compiled.broad))
      return byRule("ask", rule, { path: shown });
  const explicit = ctx.rules.allow.find(
    ({ path: compiled }) => compiled && applies(compiled) && reals.length > 0 && reals.every(compiled.narrow),
  )?.rule;
  if (access === "write") {
    const guarded = forms.map((form) => protectedPath(form, ctx.cairnHome)).find(Boolean);
    if (guarded) {
      if (explicit) return byRule("allow", explicit, { path: shown });
      const suggestion = `Write(${suggestPattern(guarded.path, ctx)})`;
      return {
        behavior: "ask",
        message: `${guarded.path} is a protected path (${guarded.what}); allow it explicitly with a rule like ${suggestion}`,
        path: shown,
        suggestions: [suggestion],
        code: "protected",
      };
    }
  }
  if (explicit) return byRule("allow", explicit, { path: shown });
  if (bareAllow) return byRule("allow", bareAllow, { path: shown });
  if (ctx.mode === "bypassPermissions")
    return { behavior: "allow", message: "allowed (bypassPermissions)", path: shown };
  if (error) return { behavior: "ask", message: `${display}: ${error}`, path: display, code: "unresolvable" };
  const ruleName = access === "read" ? "Read" : "Edit";
  if (!contained) {
    const suggestion = `${ruleName}(${suggestPattern(shown, ctx)})`;
    return {
      behavior: "ask",
      message: `${shown} is outside the workspace (${ctx.roots.join(", ")}); allow it with a rule like ${suggestion} or ${ctx.forceHint}`,
      path: shown,
      suggestions: [suggestion],
      code: "outside",
    };
  }
  if (access === "read" || ctx.mode === "acceptEdits")
    return { behavior: "allow", message: "inside the workspace", path: shown };
  const suggestion = `Edit(${suggestPattern(shown, ctx)})`;
  return {
    behavior: "ask",
    message: `edits need approval in ${ctx.mode} mode; allow them with a rule like ${suggestion}, the acceptEdits mode, or ${ctx.forceHint}`,
    path: shown,
    suggestions: [suggestion],
    code: "edit",
  };
}

/** A rule pattern for a path: workspace-relative when inside it, else absolute (`//abs`). */
function suggestPattern(p: string, ctx: PolicyContext): string {
  const root = ctx.roots[0];
  if (root && containingRoot([root], p)) return path.relative(root, p) || ".";
  return `/${p}`;
}

// ---------------------------------------------------------------------------------------------------
// Shell commands
// ---------------------------------------------------------------------------------------------------

/** Variables a command prefix or an assignment may set without changing which programs run. */
const SAFE_VARIABLE =
  /^([a-z_][a-z0-9_]*|LC_[A-Z_]+|LANG|LANGUAGE|TZ|NO_COLOR|FORCE_COLOR|TERM|COLUMNS|LINES|CI|CLICOLOR|CLICOLOR_FORCE)$/;
/** Commands bash runs itself, whatever PATH says. */
const SHELL_BUILTINS = new Set(
  list("cd echo pwd printf test [ true false : set type command exit return eval exec builtin time"),
);
/** Files shell redirections may touch without a rule. */
const HARMLESS_DEVICES = new Set(
  list(
    "/dev/null /dev/stdout /dev/stderr /dev/stdin /dev/zero /dev/random /dev/urandom /dev/tty /dev/fd/0 /dev/fd/1 /dev/fd/2",
  ),
);
const OUTPUT_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
const TEXT_OPS = new Set(["<<", "<<-", "<<<"]);
const MAX_BASES = 16;
/** Commands whose first argument is a subcommand worth naming in a suggested rule. */
const SUBCOMMAND_TOOLS = new Set(
  list("git npm pnpm yarn bun cargo go docker kubectl gh pip pip3 uv poetry make npx"),
);

export function evaluateShellCommand(command: unknown, ctx: PolicyContext): PermissionVerdict {
  if (typeof command !== "string" || command.trim() === "")
    return { behavior: "allow", message: "no command to check; the tool validates its input" };
  const parsed = parseShell(command, { home: ctx.home });
  if (!parsed.ok) {
    const denyAll = ctx.rules.deny.find(
      ({ rule }) => rule.target.kind === "shell" && rule.target.matcher.kind === "any",
    );
    if (denyAll) return byRule("deny", denyAll.rule);
    const message = `the command could not be parsed (${parsed.error}), so it cannot be checked; it was not run`;
    return { behavior: ctx.mode === "plan" ? "deny" : "ask", message, code: "unparseable" };
  }
  const verdict = new ShellEvaluator(ctx, parsed.parts).run();
  // Plan mode runs read-only commands inside the workspace and nothing else: there is nothing to approve.
  if (ctx.mode === "plan" && verdict.behavior === "ask")
    return { ...verdict, behavior: "deny", message: `plan mode is read-only: ${verdict.message}` };
  return verdict;
}

class ShellEvaluator {
  private readonly bases: string[];
  /** Parts allowed by an explicit rule: their children need no further allowance. */
  private readonly allowedByRule = new Set<number>();
  private readonly anyAllow: PermissionRule | undefined;
  /** Some part may create files while others run: patterns that could match `-x` are refused. */
  private readonly mayCreateFiles: boolean;

  constructor(
    private readonly ctx: PolicyContext,
    private readonly parts: readonly ShellPart[],
  ) {
    this.bases = [ctx.cwd];
    this.mayCreateFiles = lineMayCreateFiles(
      parts,
      (part) => checkReadOnlyCommand(part.words, OPTIONS_ONLY) === undefined,
      HARMLESS_DEVICES,
    );
    this.anyAllow = ctx.rules.allow.find(
      ({ rule }) => rule.target.kind === "shell" && rule.target.matcher.kind === "any",
    )?.rule;
  }

  run(): PermissionVerdict {
    const verdicts: PermissionVerdict[] = [];
    for (const part of this.parts) {
      const verdict = this.part(part);
      verdicts.push(verdict);
      if (verdict.behavior === "deny") return verdict;
    }
    const decided = strictest(verdicts);
    if (decided.behavior !== "allow") return decided;
    const byRuleVerdict = verdicts.find((v) => v.rule);
    return (
      byRuleVerdict ?? {
        behavior: "allow",
        message: this.ctx.mode === "bypassPermissions" ? "allowed (bypassPermissions)" : "read-only command",
      }
    );
  }

  private covered(part: ShellPart): boolean {
    for (let parent = part.parent; parent !== undefined; parent = this.parts[parent]!.parent)
      if (this.allowedByRule.has(parent)) return true;
    return false;
  }

  private part(part: ShellPart): PermissionVerdict {
    switch (part.kind) {
      case "command":
        return this.command(part);
      case "redirect":
        return this.redirect(part);
      case "assign":
        return this.assignment(part.name, part.text, part);
      case "construct": {
        if (this.ctx.mode === "bypassPermissions" || this.covered(part)) return ALLOW;
        const message = `\`${part.text}\` uses ${part.what}, which cannot be checked before it runs; ${this.ctx.forceHint} to run it`;
        return { behavior: this.ctx.mode === "plan" ? "deny" : "ask", message };
      }
    }
  }

  private assignment(name: string, text: string, part: ShellPart): PermissionVerdict {
    if (SAFE_VARIABLE.test(name)) return ALLOW;
    if (this.ctx.mode === "bypassPermissions" || this.anyAllow || this.covered(part)) return ALLOW;
    const message = `\`${text}\` sets ${name}, which can change what commands run; ${this.ctx.forceHint} to run it`;
    return { behavior: this.ctx.mode === "plan" ? "deny" : "ask", message };
  }

  private command(part: ShellCommandPart): PermissionVerdict {
    const { ctx } = this;
    const written = part.words;
    const expanded = expandCommandWords(part, this.bases, this.mayCreateFiles);
    const words = expanded.words;
    // Rules match the command as written, and as it may expand (a pattern could be anything).
    const unknown = patternsUnknown(part);
    const views: MatchWord[][] = [written, unknown];
    const first = words[0]?.value;
    if (first?.includes("/")) views.push([{ value: path.basename(first) }, ...unknown.slice(1)]);
    const name = first ?? part.words[0]?.raw ?? "";

    for (const { rule } of ctx.rules.deny) {
      if (rule.target.kind !== "shell") continue;
      const { matcher } = rule.target;
      const results = views.map((view) => matchShell(matcher, view));
      if (results.includes(true)) return byRule("deny", rule);
      if (results.includes("maybe"))
        return {
          behavior: "ask",
          message: `\`${part.text}\` may match deny rule ${rule.text} (${rule.source}): part of it is computed at run time`,
          rule,
        };
    }
    for (const { rule } of ctx.rules.ask) {
      if (rule.target.kind !== "shell") continue;
      const { matcher } = rule.target;
      if (views.some((view) => matchShell(matcher, view) !== false)) return byRule("ask", rule);
    }
    const shellRule = [...ctx.rules.deny, ...ctx.rules.ask].find(({ rule }) => rule.target.kind === "shell");
    if (expanded.problem && (ctx.mode !== "bypassPermissions" || shellRule))
      return {
        behavior: ctx.mode === "plan" ? "deny" : "ask",
        message: `\`${part.text}\`: ${expanded.problem}`,
      };

    const readOnly =
      first !== undefined && !first.includes("/") && !part.wrapper ? this.readOnly(words) : undefined;
    if (readOnly?.verdict) return readOnly.verdict;
    // The list trusts names; a name the model could have planted in the workspace (a PATH entry
    // there, `.` in PATH) is not trusted.
    const planted = first !== undefined && !first.includes("/") ? this.plantedProgram(first) : undefined;

    for (const assign of part.assigns) {
      const verdict = this.assignment(assign.name, part.text, part);
      if (verdict.behavior !== "allow") return verdict;
    }

    if (ctx.mode === "plan") {
      if (part.wrapper?.transparent && !planted) return ALLOW;
      if (readOnly && readOnly.problem === undefined && !planted) return this.afterAllowed(part, ALLOW);
      return {
        behavior: "deny",
        message: `plan mode is read-only: ${planted ?? readOnly?.problem ?? `\`${name}\` is not a read-only command`}`,
      };
    }
    // What runs beyond the read-only list (by a rule, a wrapper a rule allowed, or --force) still
    // may not write protected paths or paths a Write/Edit rule denies.
    const mayWrite = !readOnly || readOnly.problem !== undefined;
    const guarded = mayWrite ? this.writeTargets(words) : undefined;

    for (const { rule } of ctx.rules.allow) {
      if (rule.target.kind !== "shell") continue;
      if (matchShell(rule.target.matcher, written) === true) {
        if (guarded) return guarded;
        // A rule names a program (one on PATH in the workspace too: node_modules/.bin), not the
        // repository git runs in: one the model wrote has a config that runs programs (textconv,
        // filters on `git add`). Looked at only here: the read-only list checks it on its own.
        const gitStart = first === "git" && !part.wrapper ? gitStartDirs(words.slice(1)) : undefined;
        const foreignRepo = gitStart && this.foreignRepository(gitStart);
        if (foreignRepo) return { behavior: "ask", message: `\`${part.text}\`: ${foreignRepo}` };
        this.allowedByRule.add(part.index);
        return this.afterAllowed(part, byRule("allow", rule));
      }
    }
    if (ctx.mode === "bypassPermissions") {
      if (guarded) return guarded;
      // --force runs everything but what a deny or ask rule names; commands nobody can see cannot
      // be checked against those rules, so with shell rules in force they are asked about.
      if (part.wrapper?.hidden && shellRule)
        return {
          behavior: "ask",
          message: `\`${part.text}\`: ${part.wrapper.problem ?? "runs hidden commands"}, so rule ${shellRule.rule.text} cannot be checked`,
        };
      return this.afterAllowed(part, ALLOW);
    }
    if (this.covered(part)) return guarded ?? this.afterAllowed(part, ALLOW);
    if (part.wrapper?.transparent && !planted) return ALLOW;

    const suggestion = suggestRule(words);
    const hint = suggestion
      ? `; allow it with a rule like ${suggestion} or ${ctx.forceHint}`
      : `; ${ctx.forceHint}`;
    if (first === undefined)
      return {
        behavior: "ask",
        message: `the command name of \`${part.text}\` is computed at run time${hint}`,
      };
    if (part.wrapper)
      return {
        behavior: "ask",
        message: `\`${first}\` ${part.wrapper.problem ?? "runs another command with more rights or in a way that cannot be checked"}${hint}`,
        ...(suggestion ? { suggestions: [suggestion] } : {}),
      };
    if (first.includes("/"))
      return {
        behavior: "ask",
        message: `\`${first}\` runs a program named by its path${hint}`,
        ...(suggestion ? { suggestions: [suggestion] } : {}),
      };
    if (planted)
      return {
        behavior: "ask",
        message: `${planted}${hint}`,
        ...(suggestion ? { suggestions: [suggestion] } : {}),
      };
    if (readOnly?.problem === undefined) return this.afterAllowed(part, ALLOW);
    const message = readOnly.problem.startsWith("shell command")
      ? `${readOnly.problem}${hint}`
      : `\`${part.text}\` is not read-only: ${readOnly.problem}${hint}`;
    return { behavior: "ask", message, ...(suggestion ? { suggestions: [suggestion] } : {}) };
  }

  /**
   * A command that may write: every path its words may name must be writable without asking — not
   * protected (`.git/hooks`, `~/.bashrc`), not denied by a Write/Edit rule. `git config` writes the
   * git config whatever its words say.
   */
  private writeTargets(words: readonly ShellWord[]): PermissionVerdict | undefined {
    if (words[0]?.value === "git" && gitWritesConfig(words.slice(1)))
      return {
        behavior: "ask",
        message: `\`${words.map((w) => w.raw).join(" ")}\` changes the git config, a protected path; it needs a rule like Write(.git/config)`,
        code: "protected",
      };
    for (const candidate of pathCandidates(words)) {
      for (const base of this.bases) {
        const verdict = this.shellPath("write", candidate, base);
        if (verdict.behavior === "deny" || verdict.code === "protected")
          return verdict.behavior === "deny"
            ? verdict
            : { ...verdict, message: `the command may write ${verdict.message}` };
      }
    }
    return undefined;
  }

  /**
   * Where PATH finds `name` right now: a problem when that is inside the workspace (tool calls that
   * edit or run commands never overlap, so the program cannot change between this check and the run).
   */
  /** Why git, started as `start` says, would not use the workspace's own repository (or one inside its git directory). */
  private foreignRepository(start: GitStart): string | undefined {
    const own = this.ctx.roots.flatMap((root) => discoverGitDir(root) ?? []);
    for (const base of this.bases) {
      const dir = start.cDirs.reduce((at, word) => joinRaw(at, word.value ?? "."), base);
      const named = start.gitDir === "bare" ? dir : start.gitDir && joinRaw(dir, start.gitDir.value ?? ".");
      const found = named === undefined ? discoverGitDir(dir) : gitDirAt(named);
      // Trusted: the workspace's own (a submodule's or linked worktree's git directory lives inside
      // it), and any other directory named `.git`, which the model cannot write (a protected path):
      // a repository the user keeps in the workspace. Not a git directory under another name (a bare
      // layout), which the Write tool can make whole.
      if (found && !own.some((gitDir) => isInside(gitDir, found)) && !inDotGit(found))
        return `git would use the repository at ${found}, not one in a .git directory (its config, which the model could have written, could run programs)`;
      if (named !== undefined && !found) return `git would use ${named}, which cannot be checked`;
    }
    return undefined;
  }

  private plantedProgram(name: string): string | undefined {
    if (SHELL_BUILTINS.has(name) || this.ctx.searchPath === undefined) return undefined;
    for (const entry of this.ctx.searchPath.split(path.delimiter)) {
      const dirs = path.isAbsolute(entry)
        ? [entry]
        : this.bases.map((base) => path.resolve(base, entry || "."));
      let found = false;
      for (const dir of dirs) {
        const candidate = path.join(dir, name);
        try {
          accessSync(candidate, constants.X_OK);
          if (!statSync(candidate).isFile()) continue;
        } catch {
          continue;
        }
        found = true;
        let real = candidate;
        try {
          real = resolvePhysical(candidate).real;
        } catch {}
        if (containingRoot(this.ctx.roots, candidate) || containingRoot(this.ctx.roots, real))
          return `\`${name}\` would run ${candidate}, a program inside the workspace (found through PATH)`;
      }
      if (found) return undefined;
    }
    return undefined;
  }

  /** Bookkeeping after a command is allowed: `cd` moves where later relative paths point. */
  private afterAllowed(part: ShellCommandPart, verdict: PermissionVerdict): PermissionVerdict {
    if (part.words[0]?.value !== "cd") return verdict;
    const target = part.words.slice(1).find((w) => w.value !== undefined && !w.value.startsWith("-"));
    if (!target?.value) return verdict;
    const added = new Set<string>();
    for (const base of this.bases) {
      try {
        added.add(resolvePhysical(joinRaw(base, target.value)).real);
      } catch {
        return { behavior: "ask", message: `cd ${target.raw} cannot be resolved` };
      }
    }
    for (const dir of added) if (!this.bases.includes(dir)) this.bases.push(dir);
    if (this.bases.length > MAX_BASES)
      return { behavior: "ask", message: "the command changes directory too often to check" };
    return verdict;
  }

  /** Runs the read-only check; path problems and path denials are collected by the checker. */
  private readOnly(words: readonly ShellWord[]): { problem?: string; verdict?: PermissionVerdict } {
    let denied: PermissionVerdict | undefined;
    let asked: PermissionVerdict | undefined;
    const readPath = (word: ShellWord) => {
      const result = this.readPath(word);
      if (!result) return undefined;
      if (result.behavior === "deny") denied ??= result;
      else if (result.rule) asked ??= result;
      if (result.code === "outside") return `${result.path} is outside the workspace`;
      return result.message;
    };
    const checker: ArgChecker = {
      readPath,
      readRepoPath: (inRepo) => {
        if (inRepo.startsWith("./") || inRepo.startsWith("../")) return readPath(literalWord(inRepo));
        return readPath(literalWord(path.join(this.ctx.cwd, inRepo)));
      },
      gitRepository: (start) => this.foreignRepository(start),
      isDirectory: (p) =>
        this.bases.some((base) => statSync(joinRaw(base, p), { throwIfNoEntry: false })?.isDirectory()),
    };
    // Every name a pattern expanded to is read, whatever the command makes of it.
    let problem: string | undefined;
    for (const word of words) if (word.fromGlob) problem ??= checker.readPath(word);
    problem ??= checkReadOnlyCommand(words, checker);
    if (denied) return { verdict: denied };
    if (asked) return { verdict: asked };
    return problem === undefined ? {} : { problem };
  }

  /** A path a read-only command reads: undefined when fine, else a deny/ask verdict. */
  private readPath(word: ShellWord): PermissionVerdict | undefined {
    if (word.procSubst) return undefined;
    const value = word.value;
    if (value === undefined)
      return { behavior: "ask", message: `the path ${word.raw} is computed at run time` };
    if (value === "-" || HARMLESS_DEVICES.has(value)) return undefined;
    if (word.brace)
      return { behavior: "ask", message: `${word.raw} uses brace expansion, which can name other paths` };
    const check = (target: string): PermissionVerdict | undefined => {
      for (const base of this.bases) {
        const verdict = this.shellPath("read", target, base);
        if (verdict.behavior !== "allow") return verdict;
      }
      return undefined;
    };
    return check(value);
  }

  /** Resolves `target` the way the kernel will for a command run in `base`, then decides. */
  private shellPath(access: "read" | "write", target: string, base: string): PermissionVerdict {
    const joined = joinRaw(base, target);
    let candidate: ResolvedPath;
    let error: string | undefined;
    try {
      const { real, exists } = resolvePhysical(joined);
      candidate = { lexical: path.resolve(joined), real, exists };
    } catch (caught) {
      candidate = { lexical: path.resolve(joined), real: path.resolve(joined), exists: false };
      error = caught instanceof PathResolutionError ? caught.message : String(caught);
    }
    const contained = [candidate.lexical, candidate.real].every((form) =>
      containingRoot(this.ctx.roots, form),
    );
    return decidePath(access, "Bash", target, [candidate], contained, error, this.ctx);
  }

  private redirect(part: Extract<ShellPart, { kind: "redirect" }>): PermissionVerdict {
    const { ctx } = this;
    const { op, target } = part;
    if (TEXT_OPS.has(op)) return ALLOW;
    const value = target.value;
    if ((op === ">&" || op === "<&") && value !== undefined && /^(\d+-?|-)$/.test(value)) return ALLOW;
    const writes = OUTPUT_OPS.has(op) || op === ">&";
    if (value === undefined) {
      const pathRules = [...ctx.rules.deny, ...ctx.rules.ask].some(({ path: p }) => p);
      if (ctx.mode === "bypassPermissions" && !pathRules) return ALLOW;
      return {
        behavior: ctx.mode === "plan" && writes ? "deny" : "ask",
        message: `the redirection target ${target.raw} is computed at run time`,
      };
    }
    if (HARMLESS_DEVICES.has(value)) return ALLOW;
    if (target.glob || target.brace) {
      if (ctx.mode === "bypassPermissions") return ALLOW;
      return { behavior: "ask", message: `the redirection target ${target.raw} is a pattern` };
    }
    const verdict = strictest(
      this.bases.map((base) => this.shellPath(writes ? "write" : "read", value, base)),
    );
    if (!writes) {
      if (verdict.behavior === "ask" && !verdict.rule && this.covered(part)) return ALLOW;
      return verdict;
    }
    // A redirection may write a file only with an explicit Write/Edit rule, in bypass mode, or under
    // a wrapper an explicit rule allowed: never by the mode's defaults (use the Write tool for that).
    if (verdict.behavior === "deny" || verdict.rule || verdict.code === "protected") return verdict;
    if (ctx.mode === "bypassPermissions" || this.covered(part)) return ALLOW;
    const shown = verdict.path ?? value;
    const suggestion = `Write(${suggestPattern(shown, ctx)})`;
    return {
      behavior: "ask",
      message: `\`${part.text}\` writes to ${shown}; shell redirections to files need a rule like ${suggestion} or ${ctx.forceHint} (or use the Write tool)`,
      path: shown,
      suggestions: [suggestion],
      code: "redirect",
    };
  }
}

function literalWord(value: string): ShellWord {
  return { value, raw: value, glob: false, brace: false, procSubst: false };
}

/** The real path of `root`'s git directory: `root/.git`, or where a `.git` file (`gitdir: X`) points. */
/** Whether `p` lies in a directory named `.git` (compared without case, as protected paths are). */
function inDotGit(p: string): boolean {
  return p.split(path.sep).some((part) => part.toLowerCase() === ".git");
}

/**
 * The git directory `p` stands for, as git reads it: a directory itself, or a `.git` file's
 * `gitdir:` pointer; undefined where there is neither.
 */
function gitDirAt(p: string): string | undefined {
  try {
    if (statSync(p).isDirectory()) return resolvePhysical(p).real;
    const pointer = /^gitdir: (.+)$/m.exec(readFileSync(p, "utf8"))?.[1]?.trim();
    return pointer ? resolvePhysical(path.resolve(path.dirname(p), pointer)).real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The git directory git finds from `dir` as it does: the first `.git` (a directory, or a file with a
 * `gitdir:` pointer) in `dir` or above it; undefined where there is none. Bare repositories are not
 * found (commands run with `safe.bareRepository=explicit`).
 */
function discoverGitDir(dir: string): string | undefined {
  let current: string;
  try {
    current = resolvePhysical(dir).real;
  } catch {
    return undefined;
  }
  for (;;) {
    const dotGit = path.join(current, ".git");
    if (statSync(dotGit, { throwIfNoEntry: false })) return gitDirAt(dotGit);
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/** `base` + `/` + `p` without lexical normalisation (the kernel resolves `..` after links). */
function joinRaw(base: string, p: string): string {
  return path.isAbsolute(p) ? p : `${base}/${p}`;
}

/** `Bash(curl:*)`, `Bash(git push:*)`. */
function suggestRule(words: readonly ShellWord[]): string | undefined {
  const first = words[0]?.value;
  if (first === undefined) return undefined;
  const second = words[1]?.value;
  if (SUBCOMMAND_TOOLS.has(first) && second !== undefined && /^[a-z][a-z0-9-]*$/.test(second))
    return `Bash(${first} ${second}:*)`;
  return `Bash(${first}:*)`;
}
