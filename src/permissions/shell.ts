import { createRequire } from "node:module";
import os from "node:os";
import { escapeShellPattern } from "../util/glob.js";
import type {
  ScriptShell,
  ShellAssign,
  ShellAssignPart,
  ShellCommandPart,
  ShellConstructPart,
  ShellParse,
  ShellPart,
  ShellRedirectPart,
  ShellWord,
} from "./shell-types.js";
import { unwrap } from "./shell-wrappers.js";

export type * from "./shell-types.js";

/**
 * Shell command splitting with a real parser (mvdan/sh, the parser behind `shfmt`, as the
 * `mvdan-sh` package). A command line becomes a flat list of parts, each checked on its own:
 *
 * - every simple command, wherever it sits: after `;`, `&&`, `||`, `|`, `&`, inside `$( )`,
 *   backticks, `<( )`, subshells, `{ }`, `if`/`while`/`for`/`case`, function bodies, here-documents,
 *   parameter expansions (`${x:-$(cmd)}`) and arithmetic;
 * - the commands inside wrappers: `env`, `sh -c`/`bash -lc`, `xargs`, `nice`, `timeout`, `nohup`,
 *   `stdbuf`, `ionice`, `setsid`, `time`, `command`, `builtin`, `exec`, `eval`, `sudo`, `doas`,
 *   `find -exec` (a child part points at its wrapper through `parent`);
 * - every redirection with its target;
 * - standalone assignments and declarations;
 * - constructs that cannot be judged statically (arithmetic on variables, `${!ref}`, `coproc`).
 *
 * What the parser rejects is reported as `ok: false` — callers treat that as "ask", never "allow".
 *
 * The AST is traversed by hand, field by field, instead of with the library's `Walk` (which in this
 * version skips `${x:offset:length}`); a second pass with `Walk` cross-checks that no command was
 * missed.
 */

/** Longer command lines are not analysed (asked about instead). */
export const MAX_COMMAND_LENGTH = 100_000;
/** How deep `sh -c 'sh -c "..."'` and similar nest before the analysis gives up. */
const MAX_SCRIPT_DEPTH = 6;

// ---------------------------------------------------------------------------------------------------
// The parser library (loaded on first use: ~70 ms, never on the CLI's start-up path)
// ---------------------------------------------------------------------------------------------------

type MvPos = { Offset(): number };
type MvNode = { Pos(): MvPos; End(): MvPos } & Record<string, unknown>;
type MvParser = { Parse(source: string, name: string): MvNode };
type MvSyntax = {
  NewParser(...options: unknown[]): MvParser;
  Variant(language: unknown): unknown;
  LangPOSIX: unknown;
  NodeType(node: MvNode): string;
  Walk(node: MvNode, visit: (node: MvNode | null) => boolean): void;
};

let syntax: MvSyntax | undefined;
/** One parser per language, reused (a parser that threw is replaced). */
const parsers: Partial<Record<"bash" | "posix", MvParser>> = {};
let redirectOps: Map<number, string> | undefined;
let testOps: { arithmetic: Set<number>; variable: Set<number> } | undefined;
/** The operator code of `${x@P}`-style transformations. */
let transformOp: number | undefined;

function loadSyntax(): MvSyntax {
  if (syntax) return syntax;
  // The GopherJS runtime sets two globals on load; put them back.
  const stackTraceLimit = Error.stackTraceLimit;
  const global = globalThis as { require?: unknown };
  const hadRequire = Object.hasOwn(global, "require");
  const previousRequire = global.require;
  try {
    const loaded = createRequire(import.meta.url)("mvdan-sh") as { syntax: MvSyntax };
    syntax = loaded.syntax;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
    if (hadRequire) global.require = previousRequire;
    else delete global.require;
  }
  calibrate(syntax);
  return syntax;
}

/** Operator codes differ between library versions: learn them by parsing one example of each. */
function calibrate(sx: MvSyntax): void {
  const names = [">", ">>", "<", "<>", ">&", "<&", ">|", "&>", "&>>", "<<", "<<-", "<<<"];
  const source = names.map((op) => (op.startsWith("<<") && op !== "<<<" ? `a ${op}E\nE` : `a ${op}b`));
  const file = sx.NewParser().Parse(`${source.join("\n")}\n`, "");
  redirectOps = new Map();
  (file.Stmts as MvNode[]).forEach((stmt, i) => {
    const redirect = (stmt.Redirs as MvNode[])[0]!;
    redirectOps!.set(redirect.Op as number, names[i]!);
  });
  const arithmetic = ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];
  const tests = sx
    .NewParser()
    .Parse(`${arithmetic.map((op) => `[[ a ${op} b ]]`).join("\n")}\n[[ -v a ]]\n[[ -R a ]]\n`, "");
  const ops = (tests.Stmts as MvNode[]).map((stmt) => ((stmt.Cmd as MvNode).X as MvNode).Op as number);
  testOps = { arithmetic: new Set(ops.slice(0, 6)), variable: new Set(ops.slice(6)) };
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template
  const transform = sx.NewParser().Parse("echo ${x@P}\n", "");
  const param = (((transform.Stmts as MvNode[])[0]!.Cmd as MvNode).Args as MvNode[])[1]!;
  transformOp = (((param.Parts as MvNode[])[0]!.Exp as MvNode).Op as number) ?? undefined;
}

function parserFor(sx: MvSyntax, language: "bash" | "posix"): MvParser {
  const made =
    parsers[language] ?? (language === "bash" ? sx.NewParser() : sx.NewParser(sx.Variant(sx.LangPOSIX)));
  parsers[language] = made;
  return made;
}

function describeParseError(error: unknown): string {
  const withError = error as { Error?: () => string; message?: string };
  if (typeof withError?.Error === "function") return withError.Error();
  if (typeof withError?.message === "string") return withError.message;
  return String(error);
}

// ---------------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------------

/** Splits a command line into parts. `home` expands unquoted `~` (default: the user's home). */
export function parseShell(command: string, options: { home?: string } = {}): ShellParse {
  if (command.length > MAX_COMMAND_LENGTH)
    return { ok: false, error: `the command is longer than ${MAX_COMMAND_LENGTH} characters` };
  if (command.includes("\u0000")) return { ok: false, error: "the command contains a NUL character" };
  const collector = new Collector(loadSyntax(), options.home ?? os.homedir());
  try {
    collector.script(command, undefined, 0, "bash");
  } catch (error) {
    return { ok: false, error: describeParseError(error) };
  }
  return { ok: true, parts: collector.parts };
}

class ParseFailure extends Error {}

class Collector {
  readonly parts: ShellPart[] = [];
  private source = Buffer.alloc(0);

  constructor(
    private readonly sx: MvSyntax,
    private readonly home: string,
  ) {}

  /**
   * Parses a (sub)script and collects its parts; `parent` is the wrapper that runs it. A script for
   * `sh` is read as POSIX sh (dash has none of bash's extensions) and as bash (`sh` is bash on some
   * systems): it is analysed only when both readings give the same parts.
   */
  script(text: string, parent: number | undefined, depth: number, shell: ScriptShell): void {
    if (depth > MAX_SCRIPT_DEPTH) throw new ParseFailure("shell scripts are nested too deeply to check");
    if (shell === "sh") {
      const asBash = new Collector(this.sx, this.home);
      asBash.script(text, undefined, 0, "bash");
      const first = this.parts.length;
      this.parse(text, parent, depth, "sh");
      const asSh = this.parts.slice(first);
      if (signature(asSh) !== signature(asBash.parts))
        throw new ParseFailure("sh (dash) and bash read this script differently, so it cannot be checked");
      return;
    }
    this.parse(text, parent, depth, shell);
  }

  private parse(text: string, parent: number | undefined, depth: number, shell: ScriptShell): void {
    const language = shell === "sh" ? "posix" : "bash";
    let file: MvNode;
    try {
      file = parserFor(this.sx, language).Parse(text, "");
    } catch (error) {
      delete parsers[language];
      throw new ParseFailure(
        shell === "sh" ? `not POSIX sh syntax: ${describeParseError(error)}` : describeParseError(error),
      );
    }
    const saved = this.source;
    this.source = Buffer.from(text, "utf8");
    const seen = new Set<string>();
    const ctx: Ctx = { parent, depth, seen, shell };
    this.stmts(file.Stmts, ctx);
    this.crossCheck(file, seen);
    this.source = saved;
  }

  /** Every command, substitution and redirection the library's own walker finds must have been seen. */
  private crossCheck(file: MvNode, seen: Set<string>): void {
    let missed: string | undefined;
    this.sx.Walk(file, (node) => {
      if (!node || missed) return false;
      const type = this.sx.NodeType(node);
      if (CHECKED_TYPES.has(type) && !seen.has(this.key(type, node))) missed = type;
      return true;
    });
    if (missed) throw new ParseFailure(`internal check failed: a ${missed} node was not analysed`);
  }

  private key(type: string, node: MvNode): string {
    return `${type}@${node.Pos().Offset()}-${node.End().Offset()}`;
  }

  private text(node: MvNode): string {
    return this.source.subarray(node.Pos().Offset(), node.End().Offset()).toString("utf8");
  }

  private push<T extends ShellPart>(part: Omit<T, "index">): number {
    const index = this.parts.length;
    this.parts.push({ ...part, index } as T);
    return index;
  }

  private construct(node: MvNode, what: string, ctx: Ctx): void {
    this.push<ShellConstructPart>({ kind: "construct", what, text: this.text(node), ...origin(ctx) });
  }

  // --- statements and commands ------------------------------------------------------------------

  private stmts(list: unknown, ctx: Ctx): void {
    for (const stmt of nodes(list)) this.stmt(stmt, ctx);
  }

  private stmt(stmt: MvNode | null, ctx: Ctx): void {
    if (!stmt) return;
    const cmd = stmt.Cmd as MvNode | null;
    if (stmt.Coprocess === true) this.construct(stmt, "a coprocess (coproc)", ctx);
    if (cmd) this.command(cmd, ctx);
    for (const redirect of nodes(stmt.Redirs)) this.redirect(redirect, ctx);
  }

  private command(cmd: MvNode, ctx: Ctx): void {
    const type = this.sx.NodeType(cmd);
    ctx.seen.add(this.key(type, cmd));
    switch (type) {
      case "CallExpr":
        this.call(cmd, ctx);
        return;
      case "BinaryCmd":
        this.stmt(cmd.X as MvNode, ctx);
        this.stmt(cmd.Y as MvNode, ctx);
        return;
      case "Subshell":
      case "Block":
        this.stmts(cmd.Stmts, ctx);
        return;
      case "IfClause":
        this.ifClause(cmd, ctx);
        return;
      case "WhileClause":
        this.stmts(cmd.Cond, ctx);
        this.stmts(cmd.Do, ctx);
        return;
      case "ForClause": {
        const loop = cmd.Loop as MvNode;
        const loopType = this.sx.NodeType(loop);
        if (loopType === "WordIter") {
          // `for NAME in ...` and `select NAME in ...` assign NAME (`for PS4 in '$(cmd)'` is `PS4=...`).
          const name = (loop.Name as MvNode | null)?.Value as string | undefined;
          if (name === undefined) this.construct(cmd, "a loop without a variable name", ctx);
          else
            this.push<ShellAssignPart>({
              kind: "assign",
              name,
              declaration: cmd.Select === true ? "select" : "for",
              text: this.text(cmd),
              ...origin(ctx),
            });
          for (const item of nodes(loop.Items)) this.word(item, ctx);
        } else if (loopType === "CStyleLoop") {
          for (const field of ["Init", "Cond", "Post"]) this.arithm(loop[field] as MvNode | null, ctx, cmd);
        } else {
          this.construct(cmd, `an unsupported loop (${loopType})`, ctx);
        }
        this.stmts(cmd.Do, ctx);
        return;
      }
      case "CaseClause":
        this.word(cmd.Word as MvNode, ctx);
        for (const item of nodes(cmd.Items)) {
          for (const pattern of nodes(item.Patterns)) this.word(pattern, ctx);
          this.stmts(item.Stmts, ctx);
        }
        return;
      case "FuncDecl":
        this.stmt(cmd.Body as MvNode, ctx);
        return;
      case "TimeClause":
        this.stmt(cmd.Stmt as MvNode | null, ctx);
        return;
      case "CoprocClause":
        this.construct(cmd, "a coprocess (coproc)", ctx);
        this.stmt(cmd.Stmt as MvNode, ctx);
        return;
      case "LetClause":
        for (const expr of nodes(cmd.Exprs)) this.arithm(expr, ctx, cmd);
        return;
      case "ArithmCmd":
        this.arithm(cmd.X as MvNode, ctx, cmd);
        return;
      case "TestClause":
        this.test(cmd.X as MvNode, ctx, cmd);
        return;
      case "DeclClause":
        this.declaration(cmd, ctx);
        return;
      default:
        this.construct(cmd, `unsupported shell syntax (${type})`, ctx);
        return;
    }
  }

  private ifClause(clause: MvNode | null, ctx: Ctx): void {
    for (let current = clause; current; current = current.Else as MvNode | null) {
      this.stmts(current.Cond, ctx);
      this.stmts(current.Then, ctx);
    }
  }

  private call(call: MvNode, ctx: Ctx): void {
    const assigns: ShellAssign[] = [];
    for (const assign of nodes(call.Assigns)) {
      this.assignChildren(assign, ctx);
      const name = (assign.Name as MvNode | null)?.Value as string | undefined;
      const value = assign.Value ? this.wordInfo(assign.Value as MvNode) : undefined;
      if (name !== undefined) assigns.push({ name, ...(value ? { value } : {}) });
      else this.construct(assign, "an assignment without a name", ctx);
    }
    const args = nodes(call.Args);
    for (const arg of args) this.word(arg, ctx);
    if (args.length === 0) {
      for (const assign of assigns)
        this.push<ShellAssignPart>({
          kind: "assign",
          name: assign.name,
          text: this.text(call),
          ...origin(ctx),
        });
      return;
    }
    const words = args.map((arg) => this.wordInfo(arg));
    this.commandWords(words, assigns, this.text(call), ctx);
  }

  /** Records a command part and, for wrappers, the commands it runs. */
  private commandWords(words: ShellWord[], assigns: ShellAssign[], text: string, ctx: Ctx): void {
    const unwrapped = unwrap(words, ctx.shell);
    const index = this.push<ShellCommandPart>({
      kind: "command",
      words,
      assigns,
      text,
      ...origin(ctx),
      ...(unwrapped
        ? {
            wrapper: {
              name: unwrapped.name,
              transparent: unwrapped.problem === undefined && !unwrapped.opaque,
              ...(unwrapped.problem ? { problem: unwrapped.problem } : {}),
              ...(unwrapped.hidden ? { hidden: true } : {}),
            },
          }
        : {}),
    });
    if (!unwrapped) return;
    const inner: Ctx = { parent: index, depth: ctx.depth + 1, seen: ctx.seen, shell: ctx.shell };
    if (inner.depth > MAX_SCRIPT_DEPTH) throw new ParseFailure("commands are nested too deeply to check");
    for (const child of unwrapped.commands) {
      if (child.words.length === 0) continue;
      this.commandWords(child.words, child.assigns, child.words.map((word) => word.raw).join(" "), inner);
    }
    for (const script of unwrapped.scripts) this.script(script.text, index, ctx.depth + 1, script.shell);
  }

  private declaration(decl: MvNode, ctx: Ctx): void {
    const variant = ((decl.Variant as MvNode | null)?.Value as string | undefined) ?? "declare";
    for (const assign of nodes(decl.Args)) {
      this.assignChildren(assign, ctx);
      const name = (assign.Name as MvNode | null)?.Value as string | undefined;
      if (name === undefined) {
        // A flag (`-x`) or a computed word.
        const flag = assign.Value ? this.wordInfo(assign.Value as MvNode) : undefined;
        const value = flag?.value;
        if (value === undefined || !/^[-+][aAgilnrtuxfFp]+$/.test(value))
          this.construct(assign, `${variant} with an argument computed at run time`, ctx);
        else if (/[in]/.test(value))
          this.construct(
            assign,
            `${variant} ${value} (integer and reference variables evaluate their values)`,
            ctx,
          );
        continue;
      }
      this.push<ShellAssignPart>({
        kind: "assign",
        name,
        declaration: variant,
        text: this.text(decl),
        ...origin(ctx),
      });
    }
  }

  private assignChildren(assign: MvNode, ctx: Ctx): void {
    if (assign.Index) this.arithm(assign.Index as MvNode, ctx, assign);
    if (assign.Value) this.word(assign.Value as MvNode, ctx);
    const array = assign.Array as MvNode | null;
    if (array) {
      for (const elem of nodes(array.Elems)) {
        if (elem.Index) this.arithm(elem.Index as MvNode, ctx, elem);
        if (elem.Value) this.word(elem.Value as MvNode, ctx);
      }
    }
  }

  private redirect(redirect: MvNode, ctx: Ctx): void {
    ctx.seen.add(this.key("Redirect", redirect));
    const op = redirectOps?.get(redirect.Op as number);
    const target = redirect.Word as MvNode | null;
    if (target) this.word(target, ctx);
    const hdoc = redirect.Hdoc as MvNode | null;
    if (hdoc) this.word(hdoc, ctx);
    if (op === undefined || !target) {
      this.construct(redirect, "an unknown redirection", ctx);
      return;
    }
    const fd = (redirect.N as MvNode | null)?.Value as string | undefined;
    this.push<ShellRedirectPart>({
      kind: "redirect",
      op,
      ...(fd !== undefined ? { fd } : {}),
      target: this.wordInfo(target),
      text: this.text(redirect),
      ...origin(ctx),
    });
  }

  // --- words --------------------------------------------------------------------------------------

  /** Visits everything inside a word that can run commands. */
  private word(word: MvNode | null, ctx: Ctx): void {
    if (!word) return;
    for (const part of nodes(word.Parts)) this.wordPart(part, ctx);
  }

  private wordPart(part: MvNode, ctx: Ctx): void {
    const type = this.sx.NodeType(part);
    switch (type) {
      case "Lit":
      case "SglQuoted":
        return;
      case "DblQuoted":
        for (const inner of nodes(part.Parts)) this.wordPart(inner, ctx);
        return;
      case "CmdSubst":
      case "ProcSubst":
        ctx.seen.add(this.key(type, part));
        this.stmts(part.Stmts, ctx);
        return;
      case "ArithmExp":
        this.arithm(part.X as MvNode, ctx, part);
        return;
      case "ParamExp":
        this.paramExp(part, ctx);
        return;
      case "ExtGlob":
        return;
      case "BraceExp":
        for (const elem of nodes(part.Elems)) this.word(elem, ctx);
        return;
      default:
        this.construct(part, `unsupported word syntax (${type})`, ctx);
        return;
    }
  }

  private paramExp(part: MvNode, ctx: Ctx): void {
    if (part.Excl === true) this.construct(part, `an indirect expansion ($${"{"}!name})`, ctx);
    const expansion = part.Exp as Record<string, unknown> | null;
    // `${x@P}` expands prompt escapes (and runs `$(...)` in the value), `${x@E}` escapes, `${x@A}`...
    if (expansion && transformOp !== undefined && expansion.Op === transformOp)
      this.construct(part, `a transformation ($${"{"}name@op})`, ctx);
    if (part.Index) {
      const index = part.Index as MvNode;
      const lit = this.sx.NodeType(index) === "Word" ? nodes(index.Parts) : [];
      const all =
        lit.length === 1 &&
        this.sx.NodeType(lit[0]!) === "Lit" &&
        ["@", "*"].includes(lit[0]!.Value as string);
      if (!all) this.arithm(index, ctx, part);
    }
    const slice = part.Slice as Record<string, unknown> | null;
    if (slice) {
      for (const field of ["Offset", "Length"]) this.arithm(slice[field] as MvNode | null, ctx, part);
    }
    const repl = part.Repl as Record<string, unknown> | null;
    if (repl) {
      this.word(repl.Orig as MvNode | null, ctx);
      this.word(repl.With as MvNode | null, ctx);
    }
    const exp = part.Exp as Record<string, unknown> | null;
    if (exp) this.word(exp.Word as MvNode | null, ctx);
    const nested = part.NestedParam as MvNode | null | undefined;
    if (nested) this.wordPart(nested, ctx);
  }

  /**
   * Arithmetic. Bash evaluates variable values inside arithmetic as expressions, array subscripts
   * included, so `x='a[$(cmd)]'; echo $((x))` runs `cmd`: arithmetic that reads a variable is a
   * construct to ask about. Substitutions inside are collected as usual.
   */
  private arithm(expr: MvNode | null, ctx: Ctx, owner: MvNode): void {
    if (!expr) return;
    let usesVariables = false;
    const visit = (node: MvNode | null): void => {
      if (!node) return;
      const type = this.sx.NodeType(node);
      switch (type) {
        case "BinaryArithm":
          visit(node.X as MvNode);
          visit(node.Y as MvNode);
          return;
        case "UnaryArithm":
        case "ParenArithm":
          visit(node.X as MvNode);
          return;
        case "Word": {
          for (const part of nodes(node.Parts)) {
            const partType = this.sx.NodeType(part);
            if (partType === "Lit") {
              if (!/^(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9a-zA-Z@_]+)?)$/.test(part.Value as string))
                usesVariables = true;
            } else {
              usesVariables = true;
              this.wordPart(part, ctx);
            }
          }
          return;
        }
        default:
          this.construct(node, `unsupported arithmetic (${type})`, ctx);
      }
    };
    visit(expr);
    if (usesVariables) this.construct(owner, "arithmetic on variables", ctx);
  }

  private test(expr: MvNode | null, ctx: Ctx, owner: MvNode): void {
    if (!expr) return;
    const type = this.sx.NodeType(expr);
    switch (type) {
      case "BinaryTest":
        if (testOps?.arithmetic.has(expr.Op as number)) this.construct(owner, "an arithmetic test", ctx);
        this.test(expr.X as MvNode, ctx, owner);
        this.test(expr.Y as MvNode, ctx, owner);
        return;
      case "UnaryTest":
        if (testOps?.variable.has(expr.Op as number)) this.construct(owner, "a variable test (-v, -R)", ctx);
        this.test(expr.X as MvNode, ctx, owner);
        return;
      case "ParenTest":
        this.test(expr.X as MvNode, ctx, owner);
        return;
      case "Word":
        this.word(expr, ctx);
        return;
      default:
        this.construct(expr, `unsupported test syntax (${type})`, ctx);
        return;
    }
  }

  /** Quote removal and `~` expansion of a word, when its value does not depend on run time. */
  private wordInfo(word: MvNode): ShellWord {
    const info: ShellWord = { raw: this.text(word), glob: false, brace: false, procSubst: false };
    let value = "";
    // The same text as a shell pattern: quoted characters escaped (src/util/glob.ts).
    let pattern = "";
    let dynamic = false;
    const quoted = (text: string) => {
      value += text;
      pattern += escapeShellPattern(text);
    };
    nodes(word.Parts).forEach((part, i) => {
      const type = this.sx.NodeType(part);
      if (type === "Lit") {
        let lit = part.Value as string;
        if (i === 0 && lit.startsWith("~")) {
          const slash = lit.indexOf("/");
          const prefix = slash === -1 ? lit : lit.slice(0, slash);
          const onlyPart = nodes(word.Parts).length === 1 || slash !== -1;
          if (prefix === "~" && onlyPart) {
            quoted(this.home);
            lit = slash === -1 ? "" : lit.slice(slash);
          } else if (prefix === "~" || /^~[A-Za-z0-9_.+-]*$/.test(prefix)) {
            dynamic = true;
          }
        }
        const unquoted = unquoteLiteral(lit);
        value += unquoted.value;
        pattern += lit.replace(/\\\n/g, "");
        info.glob ||= unquoted.glob;
        info.brace ||= unquoted.brace;
      } else if (type === "SglQuoted") {
        const text = part.Value as string;
        if (part.Dollar === true) {
          const decoded = decodeAnsiC(text);
          if (decoded === undefined) dynamic = true;
          else quoted(decoded);
        } else {
          quoted(text);
        }
      } else if (type === "DblQuoted") {
        for (const inner of nodes(part.Parts)) {
          if (this.sx.NodeType(inner) === "Lit") quoted(unquoteDouble(inner.Value as string));
          else dynamic = true;
        }
      } else {
        if (type === "ProcSubst") info.procSubst = true;
        if (type === "ExtGlob") info.glob = true;
        dynamic = true;
      }
    });
    if (!dynamic) {
      info.value = value;
      if (info.glob) info.pattern = pattern;
    }
    return info;
  }
}

type Ctx = { parent: number | undefined; depth: number; seen: Set<string>; shell: ScriptShell };

/** Node types the cross-check with the library's walker insists on. */
const CHECKED_TYPES = new Set(["CallExpr", "CmdSubst", "ProcSubst", "Redirect", "DeclClause"]);

function origin(ctx: Ctx): { parent?: number; shell: ScriptShell } {
  return ctx.parent === undefined ? { shell: ctx.shell } : { parent: ctx.parent, shell: ctx.shell };
}

/** What two readings of one script must agree on: every part, its words and their values. */
function signature(parts: readonly ShellPart[]): string {
  return JSON.stringify(
    parts.map((part) => {
      const { index: _, parent: __, shell: ___, ...rest } = part;
      return rest;
    }),
  );
}

function nodes(list: unknown): MvNode[] {
  return Array.isArray(list) ? (list.filter(Boolean) as MvNode[]) : [];
}

/** Unquoted literal text: backslash escapes removed, glob and brace characters noted. */
function unquoteLiteral(lit: string): { value: string; glob: boolean; brace: boolean } {
  let value = "";
  let glob = false;
  let braceOpen = -1;
  let brace = false;
  for (let i = 0; i < lit.length; i += 1) {
    const char = lit[i]!;
    if (char === "\\") {
      const next = lit[i + 1];
      if (next === undefined) break;
      i += 1;
      if (next !== "\n") value += next;
      continue;
    }
    if (char === "*" || char === "?" || char === "[") glob = true;
    if (char === "{") braceOpen = i;
    if (char === "}" && braceOpen !== -1) {
      const inside = lit.slice(braceOpen + 1, i);
      if (inside.includes(",") || inside.includes("..")) brace = true;
    }
    value += char;
  }
  return { value, glob, brace };
}

/** Text inside double quotes: only `\$`, `` \` ``, `\"`, `\\` and `\<newline>` are escapes. */
function unquoteDouble(lit: string): string {
  return lit.replace(/\\([$`"\\\n])/g, (_, char: string) => (char === "\n" ? "" : char));
}

/** `$'...'` text; undefined for escapes other than the simple ones (treated as computed). */
function decodeAnsiC(text: string): string | undefined {
  const simple: Record<string, string> = {
    n: "\n",
    t: "\t",
    r: "\r",
    "\\": "\\",
    "'": "'",
    '"': '"',
    a: "\x07",
    e: "\x1b",
  };
  let out = "";
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (char !== "\\") {
      out += char;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined || simple[next] === undefined) return undefined;
    out += simple[next];
    i += 1;
  }
  return out;
}
