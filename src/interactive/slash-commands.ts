import type { SlashCommand } from "../agents/commands.js";
import type { Session } from "../session/session.js";
import type { Editor } from "./editor.js";
import type { Key } from "./keys.js";
import type { PickerItem } from "./list-picker.js";
import { modelChoices } from "./model-choices.js";
import type { Styles } from "./style.js";
import { truncate } from "./text-width.js";

/** What a built-in `/` command may do with the app around it (app.ts implements it). */
export type SlashHost = {
  readonly session: Session;
  readonly cwd: string;
  /** The environment the session reads (which providers have keys, for `/model`'s list). */
  readonly env: NodeJS.ProcessEnv;
  /** The session's model changed (the footer shows it). */
  modelChanged(model: string): void;
  /** Writes a notice into the conversation (the scrollback). */
  say(text: string, tone?: "plain" | "dim" | "error"): void;
  /** Sends `text` as a prompt, as if typed; `shown` is what the conversation shows of it. */
  send(text: string, shown?: string): void;
  /** Ends the current session and opens a new one, or the session `resume`. */
  newSession(resume?: string): Promise<void>;
  pick<T>(title: string, items: PickerItem<T>[], start?: number): Promise<T | undefined>;
  /** Puts text on the terminal's clipboard (OSC 52). */
  copy(text: string): void;
  /** The last turn's answer (its text after the last tool call). */
  lastAnswer(): string | undefined;
  /** Esc Esc's rewind picker. */
  rewind(): void;
  quit(): void;
  /** Every command, for /help. */
  commands(): Promise<MenuEntry[]>;
};

type Builtin = {
  name: string;
  description: string;
  argumentHint?: string;
  aliases?: string[];
  /** The command is a prompt: the prompt shows it, so the command is not shown twice. */
  prompt?: true;
  run(args: string, host: SlashHost): Promise<void> | void;
};

export type MenuEntry = { name: string; description: string; argumentHint: string; aliases: string[] };

const INIT_PROMPT = `Please analyze this codebase and create an AGENTS.md file in its root, containing:
1. The commands to build, lint and test it, including how to run a single test.
2. Its architecture at a high level: the big picture that takes reading several files to understand.
If an AGENTS.md already exists, suggest improvements to it instead. Include the important parts of any
README.md, CONTRIBUTING.md, .cursorrules, .github/copilot-instructions.md or CLAUDE.md found. Keep it
short and specific to this repository; do not list obvious practices or every file.`;

/**
 * The interactive mode's own `/` commands, by the reference's names (the aliases are its other
 * names). Each does its job through the session controller; `/compact` and `/init` are prompts.
 */
export const BUILTINS: Builtin[] = [
  {
    name: "help",
    description: "List the commands and keys",
    async run(_args, host) {
      const rows = (await host.commands()).map(
        (entry) =>
          `/${entry.name}${entry.argumentHint ? ` ${entry.argumentHint}` : ""} — ${entry.description}${
            entry.aliases.length > 0 ? ` (also ${entry.aliases.map((alias) => `/${alias}`).join(", ")})` : ""
          }`,
      );
      host.say(
        [
          "Commands:",
          ...rows.map((row) => `  ${row}`),
          "Input: @ mentions a file or folder (@src/a.ts#L10-20), ! runs a shell command, Esc Esc rewinds.",
          "Keys: docs/interactive.md lists them all.",
        ].join("\n"),
      );
    },
  },
  {
    name: "clear",
    aliases: ["reset", "new"],
    description: "Start a new session (the screen's scrollback stays)",
    async run(_args, host) {
      await host.newSession();
      // The scrollback stays: a separator shows where the new session's conversation begins.
      host.say("──── Started a new session. The conversation above is not sent to the model. ────", "dim");
    },
  },
  {
    name: "compact",
    argumentHint: "[instructions]",
    description: "Summarise the conversation so far to free context",
    prompt: true,
    run(args, host) {
      host.send(args ? `/compact ${args}` : "/compact");
    },
  },
  {
    name: "model",
    argumentHint: "[model]",
    description: "Pick the model for the next turns (or /model <name>)",
    async run(args, host) {
      let name: string | undefined = args || undefined;
      if (name === undefined) {
        const { items, start } = modelChoices((await host.session.currentModel()).model, host.env);
        name = await host.pick("Model for the next turns? (/model <name> takes any other)", items, start);
        if (name === undefined) return;
      }
      await host.session.setModel(name === "default" ? undefined : name);
      const model = (await host.session.currentModel()).model;
      host.modelChanged(model);
      host.say(`Model: ${model}`);
    },
  },
  {
    name: "plan",
    argumentHint: "[task]",
    description: "Switch to plan mode (no edits); with a task, send it",
    run(args, host) {
      host.session.setMode("plan");
      host.say("Plan mode: the agent reads and plans, nothing is changed (shift+tab leaves it).", "dim");
      if (args) host.send(args);
    },
  },
  {
    name: "resume",
    aliases: ["continue"],
    argumentHint: "[session id]",
    description: "Resume an earlier session of this directory",
    async run(args, host) {
      let id: string | undefined = args || undefined;
      if (!id) {
        const sessions = (await host.session.store.list(host.cwd))
          .filter((summary) => summary.sessionId !== host.session.id)
          .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
        if (sessions.length === 0) {
          host.say("No earlier session in this directory.", "dim");
          return;
        }
        id = await host.pick(
          "Resume which session?",
          sessions.map((summary) => ({
            label: summary.firstPrompt ?? "(no prompt)",
            detail: `${summary.updatedAt.slice(0, 16).replace("T", " ")} · ${summary.prompts} prompts · ${summary.sessionId.slice(0, 8)}`,
            value: summary.sessionId,
          })),
        );
        if (!id) return;
      }
      await host.newSession(id);
      host.say(`Resumed session ${id}.`, "dim");
    },
  },
  {
    name: "rewind",
    aliases: ["checkpoint"],
    description: "Go back to an earlier prompt, and restore the files (Esc Esc)",
    run(_args, host) {
      host.rewind();
    },
  },
  {
    name: "status",
    description: "Session, model, mode, directory and context used",
    async run(_args, host) {
      const { session } = host;
      const usage = await session.contextUsage(undefined);
      const percent = usage.maxTokens > 0 ? ` (${Math.round((usage.tokens / usage.maxTokens) * 100)}%)` : "";
      host.say(
        [
          `Session: ${session.id}`,
          `Model: ${usage.model}`,
          `Permission mode: ${session.mode ?? "default"}`,
          `Directory: ${host.cwd}`,
          `Context: about ${usage.tokens} tokens${usage.maxTokens > 0 ? ` of ${usage.maxTokens}` : ""}${percent}`,
        ].join("\n"),
      );
    },
  },
  {
    name: "permissions",
    aliases: ["allowed-tools"],
    description: "List the permission rules in effect",
    async run(_args, host) {
      const { rules } = await host.session.config();
      // The config files' rules, then the flags' and those answers added for the session.
      const all = [...rules, ...host.session.permissions.doorRules()];
      if (all.length === 0) {
        host.say(`No permission rules; mode ${host.session.mode ?? "default"}.`);
        return;
      }
      host.say(
        ["Permission rules:", ...all.map((rule) => `  ${rule.behavior} ${rule.text}  (${rule.source})`)].join(
          "\n",
        ),
      );
    },
  },
  {
    name: "mcp",
    description: "List the MCP servers and their state",
    async run(_args, host) {
      const run = await host.session.assembly();
      const states = run.mcp.states();
      if (states.length === 0) {
        host.say("No MCP servers are configured.");
        return;
      }
      host.say(
        [
          "MCP servers:",
          ...states.map(
            (state) =>
              `  ${state.name}: ${state.status}${state.error ? ` (${state.error})` : ""} · ${state.tools.length} tools`,
          ),
        ].join("\n"),
      );
    },
  },
  {
    name: "agents",
    description: "List the subagents the Agent tool offers",
    async run(_args, host) {
      const agents = await host.session.agents();
      host.say(
        agents.length === 0
          ? "No subagents."
          : ["Subagents:", ...agents.map((agent) => `  ${agent.name} — ${agent.description}`)].join("\n"),
      );
    },
  },
  {
    name: "init",
    description: "Write an AGENTS.md for this codebase",
    prompt: true,
    run(_args, host) {
      host.send(INIT_PROMPT, "/init");
    },
  },
  {
    name: "copy",
    description: "Copy the last answer (or a code block in it) to the clipboard",
    async run(_args, host) {
      const answer = host.lastAnswer();
      if (!answer) {
        host.say("Nothing to copy yet.", "dim");
        return;
      }
      const blocks = codeBlocks(answer);
      let text: string | undefined = answer;
      if (blocks.length > 0)
        text = await host.pick("Copy what?", [
          { label: "The whole answer", value: answer },
          ...blocks.map((block, i) => ({
            label: block.split("\n")[0] ?? "",
            detail: `code block ${i + 1}, ${block.split("\n").length} lines`,
            value: block,
          })),
        ]);
      if (text === undefined) return;
      host.copy(text);
      host.say(`Copied ${text.split("\n").length} lines to the clipboard (OSC 52).`, "dim");
    },
  },
  {
    name: "exit",
    aliases: ["quit"],
    description: "Leave cairn",
    run(_args, host) {
      host.quit();
    },
  },
];

/** The fenced code blocks of a markdown answer, without their fences. */
export function codeBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  const fence = /^(\s*)(`{3,}|~{3,})[^\n]*\n([\s\S]*?)\n\s*\2\s*$/gm;
  for (const match of markdown.matchAll(fence)) blocks.push(match[3]!);
  return blocks;
}

/** `/name args` → its parts; undefined when the text is not a command. */
export function parseSlash(text: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z0-9][\w:.-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return match ? { name: match[1]!, args: (match[2] ?? "").trim() } : undefined;
}

export function findBuiltin(name: string): Builtin | undefined {
  return BUILTINS.find((command) => command.name === name || command.aliases?.includes(name));
}

/**
 * The completion popup under the input while a `/name` is typed (before its first space): the
 * built-ins and the session's commands (the project's and the user's commands and skills) whose name
 * starts with, or else contains, what is typed. ↑/↓ choose, Tab completes, Enter completes and sends.
 */
export class SlashMenu {
  private custom: MenuEntry[] | undefined;
  private loading: Promise<void> | undefined;
  matches: MenuEntry[] = [];
  private picked = 0;
  private typed: string | undefined;

  constructor(
    private readonly session: () => Session,
    private readonly redraw: () => void,
  ) {}

  /** Every command: built-ins first, then the session's own (cairn's `compact` is a built-in here). */
  async all(): Promise<MenuEntry[]> {
    await this.load();
    return [...BUILTINS.map(toEntry), ...(this.custom ?? [])];
  }

  /** The session changed (`/clear`, `/resume`): its commands are read again. */
  reset(): void {
    this.custom = undefined;
    this.loading = undefined;
  }

  /** Follows the input: open while it is `/` and a name being typed. */
  update(text: string): void {
    const match = /^\/(\S*)$/.exec(text);
    if (!match) {
      this.matches = [];
      this.typed = undefined;
      return;
    }
    const typed = match[1]!.toLowerCase();
    if (typed === this.typed && this.custom !== undefined) return;
    this.typed = typed;
    if (this.custom === undefined)
      void this.load().then(() => {
        this.typed = undefined;
        this.redraw();
      });
    const entries = [...BUILTINS.map(toEntry), ...(this.custom ?? [])];
    const names = (entry: MenuEntry) => [entry.name, ...entry.aliases].map((name) => name.toLowerCase());
    const starts = entries.filter((entry) => names(entry).some((name) => name.startsWith(typed)));
    const contains = entries.filter(
      (entry) => !starts.includes(entry) && names(entry).some((name) => name.includes(typed)),
    );
    this.matches = [...starts, ...contains];
    this.picked = 0;
  }

  get open(): boolean {
    return this.matches.length > 0;
  }

  /** A key while the popup is open: `complete` (Tab), `send` (Enter), or undefined (not the popup's). */
  key(key: Key, editor: Editor): "complete" | "send" | undefined {
    if (key.type === "up" || key.type === "down") {
      const step = key.type === "up" ? -1 : 1;
      this.picked = (this.picked + step + this.matches.length) % this.matches.length;
      return "complete";
    }
    const entry = this.matches[this.picked];
    if (!entry) return undefined;
    if (key.type === "tab") {
      editor.set(`/${entry.name} `);
      return "complete";
    }
    if (key.type === "enter") {
      editor.set(`/${entry.name}`);
      return "send";
    }
    return undefined;
  }

  rows(styles: Styles, width: number, room: number): string[] {
    const shown = Math.max(1, room);
    const first = Math.max(0, Math.min(this.picked - shown + 1, this.matches.length - shown));
    const nameWidth = Math.min(24, Math.max(...this.matches.map((entry) => entry.name.length + 2)));
    return this.matches.slice(first, first + shown).map((entry, i) => {
      const text = truncate(`  /${entry.name.padEnd(nameWidth)} ${entry.description}`, width);
      return first + i === this.picked ? styles.inverse(text) : styles.dim(text);
    });
  }

  private load(): Promise<void> {
    this.loading ??= this.session()
      .commands()
      .then(
        (commands) => {
          this.custom = commands
            .filter((command) => !findBuiltin(command.name))
            .map((command: SlashCommand) => ({
              name: command.name,
              description: command.description,
              argumentHint: command.argumentHint,
              aliases: command.aliases ?? [],
            }));
        },
        () => {
          this.custom = [];
        },
      );
    return this.loading;
  }
}

function toEntry(command: Builtin): MenuEntry {
  return {
    name: command.name,
    description: command.description,
    argumentHint: command.argumentHint ?? "",
    aliases: command.aliases ?? [],
  };
}
