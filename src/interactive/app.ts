import type { RunEndEvent } from "../engine/events.js";
import type { PromptBlock } from "../engine/messages.js";
import type { SessionPermissionMode } from "../permissions/types.js";
import type { AssembledRun } from "../run/assemble.js";
import type { SessionEvent } from "../session/events.js";
import type { Session } from "../session/session.js";
import { randomUuid } from "../util/random-id.js";
import { ActivityView } from "./activity.js";
import { askFor } from "./ask-for.js";
import { ConversationView } from "./conversation.js";
import { diffViewRows } from "./diff-view.js";
import { Editor } from "./editor.js";
import { layoutEditor } from "./editor-view.js";
import { drawHistory } from "./history-rows.js";
import { HistorySearch } from "./history-search.js";
import { type Key, KeyReader } from "./keys.js";
import { ListPicker, type PickerItem } from "./list-picker.js";
import { expandMentions, findMentions, MentionMenu } from "./mentions.js";
import { osc52 } from "./osc52.js";
import { PastedTexts } from "./pasted-texts.js";
import { PermissionPrompt } from "./permission-prompt.js";
import { PromptHistory } from "./prompt-history.js";
import type { Ask } from "./question-picker.js";
import { loadRenderModules, renderModules } from "./render-modules.js";
import { InlineRenderer } from "./renderer.js";
import { rewind } from "./rewind.js";
import { saveAllowRules } from "./save-rule.js";
import { runShellCommand, shellRecords } from "./shell-mode.js";
import { findBuiltin, parseSlash, type SlashHost, SlashMenu } from "./slash-commands.js";
import {
  contextTokens,
  footerText,
  gitBranch,
  Notifier,
  type NotifySettings,
  titleSequence,
} from "./status.js";
import type { Styles } from "./style.js";
import type { TerminalIo } from "./terminal.js";
import { printable, textWidth, truncate, wrapText } from "./text-width.js";

/** Shift+Tab goes through these, as the reference does. */
const MODE_CYCLE: readonly SessionPermissionMode[] = ["default", "acceptEdits", "plan"];
/** How long a lone ESC waits for the rest of a sequence before it is the Escape key. */
const ESCAPE_WAIT_MS = 40;

export type AppOptions = {
  session: Session;
  terminal: TerminalIo;
  styles: Styles;
  cwd: string;
  /** Shown in the footer until the first turn names the model. */
  model: string | undefined;
  maxTurns: number | undefined;
  /** Where this workspace's prompt history is kept (undefined: this run's only). */
  historyFile?: string | undefined;
  /** A new session of the same setup (`/clear`), or the session `resume` (`/resume`). */
  openSession?: (resume?: string) => Session;
  /** The environment (tmux and screen need OSC 52 wrapped for `/copy`). */
  env?: NodeJS.ProcessEnv;
  /** When and how to notify (status.ts: `notifySettings(env)`). */
  notify: NotifySettings;
};

/**
 * The interactive mode on a terminal: keys in (the editor, the permission prompt, the control
 * keys), the session's events out (conversation.ts), drawn by the inline renderer. Every prompt
 * goes to `session.prompt()` with `whenBusy: "steer"`: one sent while a turn runs is shown as queued
 * and joins that turn where it next calls the model, or runs next when the turn ends first.
 */
export class InteractiveApp {
  private readonly renderer: InlineRenderer;
  private readonly keys = new KeyReader();
  private readonly editor = new Editor();
  private readonly history: PromptHistory;
  private search: HistorySearch | undefined;
  private readonly slash = new SlashMenu(
    () => this.options.session,
    () => {
      this.slash.update(this.editor.text);
      this.draw();
    },
  );
  private readonly mentions: MentionMenu;
  /** Each prompt's `@` mentions are read in the order the prompts were sent. */
  private expanding: Promise<unknown> = Promise.resolve();
  private picker: ListPicker<unknown> | undefined;
  /** `!` commands' records, sent before the next prompt; the running one's abort. */
  private readonly shellHistory: PromptBlock[] = [];
  private shellAbort: AbortController | undefined;
  private lastAnswer: string | undefined;
  /** The user config, where "always allow" saves (read once the session's config is). */
  private userFile: string | undefined;
  /** Esc was pressed with nothing running: the next Esc rewinds. */
  private rewindArmed = false;
  /** `!` commands running, shown as running tools are. */
  private readonly running = new Map<string, true>();
  private readonly pasted = new PastedTexts();
  private readonly view: ConversationView;
  private readonly activity: ActivityView;
  private readonly notifier: Notifier;
  private readonly notifyWarnings: string[];
  /** The footer's facts besides the model and mode: context used, cost so far, git branch. */
  private contextWindow: number | undefined;
  private context: number | undefined;
  private cost: number | null | undefined;
  private branch: string | undefined;
  /** Rows waiting to be written into the scrollback with the next frame. */
  private committed: string[] = [];
  /** Prompts sent while a turn runs, shown until their turn starts. */
  private readonly queued: { text: string; shown: string }[] = [];
  private readonly asks: Ask[] = [];
  /** Turns started or waiting. */
  private turns = 0;
  /** The running turns' consumers, awaited at exit. */
  private readonly consumers = new Set<Promise<void>>();
  private model: string | undefined;
  /** Ctrl+C was pressed with nothing to clear: the next one exits. */
  private exitArmed = false;
  private hint: string | undefined;
  private scheduled = false;
  private escapeTimer: NodeJS.Timeout | undefined;
  private exiting = false;
  private historyBroken = false;
  private finished!: () => void;
  /** Resolves when the user leaves (Ctrl+D, Ctrl+C twice) or `stop()` is called. */
  readonly done = new Promise<void>((resolve) => {
    this.finished = resolve;
  });

  constructor(private readonly options: AppOptions) {
    const { terminal, session, styles } = options;
    this.renderer = new InlineRenderer((data) => terminal.write(data));
    this.model = options.model;
    this.history = new PromptHistory(options.historyFile);
    this.mentions = new MentionMenu(options.cwd, () => {
      this.mentions.update(this.editor);
      this.draw();
    });
    this.activity = new ActivityView(session);
    const { notify } = options;
    this.notifyWarnings = notify.warnings;
    this.notifier = new Notifier(notify, (data) => terminal.write(data));
    this.branch = gitBranch(options.cwd);
    this.view = new ConversationView(
      session,
      styles,
      (text, style, indent, wrapped) => this.commit(text, style, indent, wrapped),
      () => this.width,
    );
  }

  start(firstPrompt: string | undefined): void {
    let columns = this.options.terminal.columns;
    this.options.terminal.start(
      (data) => this.input(data),
      () => {
        // Only a width change moves rows; a height-only change needs nothing.
        if (this.options.terminal.columns === columns) return;
        columns = this.options.terminal.columns;
        this.renderer.resized(columns);
        this.draw();
      },
    );
    for (const warning of this.notifyWarnings) this.commit(warning, this.options.styles.yellow, "! ");
    this.title();
    // The first frame at once, before the run is assembled (run-interactive.ts).
    this.frame();
    // Markdown, highlighting and diffs load while the user types.
    setImmediate(() => void loadRenderModules().then(() => this.draw()));
    this.history.load().catch((error: unknown) => this.historyFailed(error));
    this.sendFirst(firstPrompt);
  }

  /** The prompt given on the command line, sent as if typed. */
  sendFirst(firstPrompt: string | undefined): void {
    if (firstPrompt !== undefined && firstPrompt.trim() !== "") {
      this.remember(firstPrompt);
      this.submit(firstPrompt);
    }
  }

  /**
   * A resumed session's conversation (`--resume`, `--continue`, `/resume`), drawn once into the
   * scrollback before the input (history-rows.ts); a new session draws nothing.
   */
  async showHistory(): Promise<void> {
    const { session, styles } = this.options;
    try {
      const [history, modules] = await Promise.all([session.resumedHistory(), loadRenderModules()]);
      if (history.length > 0)
        drawHistory(history, {
          commit: (text, style, indent, wrapped) => this.commit(text, style, indent, wrapped),
          styles,
          width: this.width,
          modules,
          title: (name, input) => this.view.title(name, input, false),
        });
    } catch (error) {
      this.view.failed(error);
    }
    this.draw();
  }

  /** Leaves: the running turn stops, the session ends, the live region is erased. */
  async stop(): Promise<void> {
    if (this.exiting) return;
    this.exiting = true;
    clearTimeout(this.escapeTimer);
    const { session } = this.options;
    session.stopTurns(new Error("The user left the interactive mode."));
    for (const ask of this.asks.splice(0))
      session.answer(ask.request.id, { behavior: "deny", message: "The user left.", interrupt: true });
    await Promise.all(this.consumers);
    for await (const event of session.end()) this.view.event(event);
    await session.close();
    this.flushCommitted();
    this.renderer.close();
    this.finished();
  }

  /** The run was assembled (its model goes in the footer), or could not be (said at once). */
  assembled(run: AssembledRun | Error): void {
    if (run instanceof Error) this.view.failed(run);
    else {
      this.model ??= run.model.model;
      this.userFile = run.config.userFile;
      this.contextWindow = run.model.contextWindow;
    }
    this.draw();
  }

  /** Bytes written to the terminal so far. */
  get bytesWritten(): number {
    return this.renderer.bytes;
  }

  private get width(): number {
    // One column short of the screen: a full row would leave the cursor in pending-wrap state.
    return Math.max(10, this.options.terminal.columns - 1);
  }

  private input(raw: string): void {
    const data = this.notifier.focusIn(raw);
    if (data === "") return;
    clearTimeout(this.escapeTimer);
    for (const key of this.keys.feed(data)) this.key(key);
    this.slash.update(this.editor.text);
    this.mentions.update(this.editor);
    if (this.keys.waiting)
      this.escapeTimer = setTimeout(() => {
        for (const key of this.keys.flush()) this.key(key);
        this.draw();
      }, ESCAPE_WAIT_MS);
    this.draw();
  }

  private key(key: Key): void {
    if (this.exiting) return;
    if (key.type !== "ctrl-c" && !(key.type === "escape" && this.rewindArmed)) this.disarm();
    const ask = this.asks[0];
    if (ask) {
      if (key.type === "ctrl-c" || (key.type === "escape" && !ask.takesEscape)) {
        this.interrupt(key.type === "ctrl-c");
        return;
      }
      const answer = ask.key(key);
      if (answer && ask instanceof PermissionPrompt && ask.toSave) this.saveRules(ask.toSave);
      if (answer) this.answer(ask, answer);
      return;
    }
    if (this.picker) {
      this.picker.key(key);
      return;
    }
    if (this.search && this.searchKey(this.search, key)) return;
    const { editor } = this;
    if (this.slash.open) {
      const done = this.slash.key(key, editor);
      if (done === "send") this.submitEditor();
      if (done) return;
    }
    if (this.mentions.open && this.mentions.key(key, editor)) return;
    switch (key.type) {
      case "text":
        editor.insert(key.text);
        return;
      case "paste":
        editor.insert(this.pasted.placeholderFor(key.text));
        return;
      case "enter":
        if (editor.takeBackslash()) editor.newline();
        else this.submitEditor();
        return;
      case "newline":
        editor.newline();
        return;
      case "backspace":
        if (!this.pasted.backspaceOver(editor)) editor.backspace();
        return;
      case "delete":
        editor.delete();
        return;
      case "left":
        editor.left();
        return;
      case "right":
        editor.right();
        return;
      case "home":
      case "ctrl-a":
        editor.home();
        return;
      case "end":
      case "ctrl-e":
        editor.end();
        return;
      case "ctrl-u":
        editor.killToStart();
        return;
      case "ctrl-k":
        editor.killToEnd();
        return;
      case "ctrl-w":
        editor.deleteWordBefore();
        return;
      case "up":
        // The history may still be loading (the first frame does not wait for it): then after it.
        if (!editor.up())
          void this.history
            .load()
            .catch(() => undefined)
            .then(() => {
              const older = this.history.older(editor.text);
              if (older !== undefined) editor.set(older);
              this.draw();
            });
        return;
      case "down":
        if (!editor.down()) {
          const newer = this.history.newer();
          if (newer !== undefined) editor.set(newer);
        }
        return;
      case "shift-tab":
        this.cycleMode();
        return;
      case "ctrl-r":
        this.search = new HistorySearch(this.history, editor.text);
        editor.set(this.search.found ?? "");
        return;
      case "escape":
        this.shellAbort?.abort();
        if (this.turns > 0) this.interrupt(false);
        else if (this.rewindArmed) {
          this.rewindArmed = false;
          this.rewind();
        } else if (editor.empty) {
          this.rewindArmed = true;
          this.hint = "Press Esc again to rewind to an earlier prompt";
        }
        return;
      case "ctrl-c":
        if (!editor.empty) {
          editor.clear();
          this.pasted.clear();
          return;
        }
        this.interrupt(true);
        return;
      case "ctrl-d":
        if (editor.empty) void this.stop();
        else editor.delete();
        return;
      case "ctrl-o":
        this.view.expandOutput();
        return;
      case "tab":
        return;
    }
  }

  /** Esc, or Ctrl+C with nothing to clear: stops the running turn; a second Ctrl+C exits. */
  private interrupt(ctrlC: boolean): void {
    if (ctrlC && this.exitArmed) {
      void this.stop();
      return;
    }
    if (this.turns > 0) this.options.session.interrupt();
    if (ctrlC) {
      this.exitArmed = true;
      this.hint = "Press Ctrl+C again to exit";
    }
  }

  private disarm(): void {
    this.exitArmed = false;
    this.rewindArmed = false;
    this.hint = undefined;
  }

  private submitEditor(): void {
    const shown = this.editor.text;
    const text = this.pasted.expand(shown);
    if (text.trim() === "") return;
    this.editor.clear();
    this.remember(text);
    const command = parseSlash(text);
    if (text.startsWith("!") && text.slice(1).trim() !== "") void this.runShell(text.slice(1).trim());
    else if (command) void this.runCommand(command.name, command.args, text);
    else this.submit(text, shown);
  }

  /** Sends `text`; `shown` is what the scrollback and the queue show of it (a long paste's placeholder). */
  private remember(text: string): void {
    this.history.add(text).catch((error: unknown) => this.historyFailed(error));
  }

  private historyFailed(error: unknown): void {
    if (this.historyBroken) return;
    this.historyBroken = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.commit(`The prompt history is not kept: ${reason}`, this.options.styles.red);
    this.draw();
  }

  /** A `/` command: a built-in runs here; the session's own commands and skills are prompts. */
  private async runCommand(name: string, args: string, text: string): Promise<void> {
    const builtin = findBuiltin(name);
    try {
      if (builtin) {
        if (!builtin.prompt) this.view.prompt(text);
        await builtin.run(args, this.slashHost());
      } else if (
        (await this.slash.all()).some((entry) => entry.name === name || entry.aliases.includes(name))
      )
        this.submit(text);
      else {
        this.view.prompt(text);
        this.say(`Unknown command /${name} (/help lists them).`, "error");
      }
    } catch (error) {
      this.say(error instanceof Error ? error.message : String(error), "error");
    }
    this.draw();
  }

  /** `!command` (shell-mode.ts): its output is shown, and joins the conversation (and the transcript) at once. */
  private async runShell(command: string): Promise<void> {
    const { styles } = this.options;
    this.commit("", undefined);
    this.commit(command, styles.bold, "! ");
    const abort = new AbortController();
    this.shellAbort = abort;
    this.running.set(command, true);
    this.draw();
    try {
      const result = await runShellCommand(command, this.options.session, abort.signal, (reason) =>
        this.pick(`Run \`${command}\`? ${reason}`, [
          { label: "No", value: false },
          { label: "Yes, run it", value: true },
        ]).then((yes) => yes === true),
      );
      if (result.ran) {
        const output = [result.stdout, result.stderr].map((part) => part.replace(/\n$/, "")).filter(Boolean);
        if (output.length === 0) this.commit("(no output)", styles.dim, "  ");
        // The last 200 lines on the screen; the model gets all of it (as the Bash tool keeps it).
        for (const line of output.join("\n").split("\n").slice(-200)) this.commit(line, undefined, "  ");
        if (result.note) this.commit(result.note, styles.yellow, "  ");
      } else this.commit(`Not run: ${result.why}`, styles.red, "  ");
      // In the conversation and the transcript at once, as the reference keeps it; while a turn runs
      // (its tool calls and results stay together), with the next prompt.
      const records = shellRecords(command, result);
      const added = await this.options.session.addUserMessage(records).catch((error: unknown) => {
        this.commit(error instanceof Error ? error.message : String(error), styles.red, "  ");
        return false;
      });
      if (!added) this.shellHistory.push(...records);
    } catch (error) {
      this.commit(error instanceof Error ? error.message : String(error), styles.red, "  ");
    } finally {
      this.running.delete(command);
      if (this.shellAbort === abort) this.shellAbort = undefined;
      this.draw();
    }
  }

  /** "Always allow": the rules go into the user config (save-rule.ts), said once saved. */
  private saveRules(rules: string[]): void {
    const file = this.userFile;
    if (!file) return;
    saveAllowRules(file, rules).then(
      () => this.say(`Saved ${rules.join(", ")} to permissions.allow in ${file}.`, "dim"),
      (error: unknown) =>
        this.say(
          `${rules.join(", ")} was not saved: ${error instanceof Error ? error.message : String(error)}`,
          "error",
        ),
    );
  }

  /** A notice in the conversation (the scrollback), wrapped. */
  say(text: string, tone: "plain" | "dim" | "error" = "plain"): void {
    const { styles } = this.options;
    const style = tone === "error" ? styles.red : tone === "dim" ? styles.dim : undefined;
    for (const line of text.split("\n")) this.commit(line, style, "  ");
    this.draw();
  }

  private slashHost(): SlashHost {
    const app = this;
    return {
      get session() {
        return app.options.session;
      },
      cwd: this.options.cwd,
      env: this.options.env ?? {},
      modelChanged: (model) => {
        this.model = model;
      },
      say: (text, tone) => this.say(text, tone),
      send: (text, shown) => this.submit(text, shown),
      newSession: (resume) => this.replaceSession(resume),
      pick: (title, items, start) => this.pick(title, items, start),
      copy: (text) => this.options.terminal.write(osc52(text, this.options.env ?? {})),
      lastAnswer: () => this.lastAnswer,
      rewind: () => this.rewind(),
      quit: () => void this.stop(),
      commands: () => this.slash.all(),
    };
  }

  /** A choice in the live region, in place of the input, until it is taken or given up. */
  pick<T>(title: string, items: PickerItem<T>[], start?: number): Promise<T | undefined> {
    return new Promise((resolve) => {
      this.picker = new ListPicker<T>(
        title,
        items,
        (value) => {
          this.picker = undefined;
          resolve(value);
          this.draw();
        },
        start !== undefined ? { start } : {},
      ) as ListPicker<unknown>;
      this.draw();
    });
  }

  /** `/clear` and `/resume`: the session ends (its SessionEnd hooks run) and another takes its place. */
  private async replaceSession(resume?: string): Promise<void> {
    const { openSession } = this.options;
    if (!openSession) throw new Error("This session cannot be replaced.");
    if (this.turns > 0) throw new Error("Wait for the running turn to end (or press Esc), then try again.");
    const old = this.options.session;
    // The reference's SessionEnd reasons: `clear` for /clear, `resume` when another session is resumed.
    for await (const event of old.end(resume !== undefined ? "resume" : "clear")) this.view.event(event);
    await old.close();
    this.options.session = openSession(resume);
    if (resume !== undefined) await this.showHistory();
    this.slash.reset();
    this.lastAnswer = undefined;
    this.model = undefined;
    void this.options.session.currentModel().then(
      (model) => {
        this.model = model.model;
        this.draw();
      },
      () => {},
    );
  }

  /** Esc Esc and `/rewind` (rewind.ts): back to an earlier prompt, its text back in the input. */
  private rewind(): void {
    if (this.turns > 0) {
      this.say("Wait for the running turn to end (or press Esc), then rewind.", "dim");
      return;
    }
    rewind(this.options.session, (title, items) => this.pick(title, items)).then(
      (done) => {
        if (!done) return;
        for (const line of done.said) this.say(line, "dim");
        if (done.prompt !== undefined) this.editor.set(done.prompt);
        this.draw();
      },
      (error: unknown) => this.say(error instanceof Error ? error.message : String(error), "error"),
    );
  }

  /** A key while Ctrl+R searches; false when the key still does its usual job afterwards. */
  private searchKey(search: HistorySearch, key: Key): boolean {
    const outcome = search.key(key);
    if (outcome === "stay") {
      this.editor.set(search.found ?? "");
      return true;
    }
    this.search = undefined;
    if (outcome === "cancel") this.editor.set(search.draft);
    else if (outcome === "send") this.submitEditor();
    return outcome !== "accept";
  }

  private submit(text: string, shown = text): void {
    const entry = { text, shown };
    if (this.turns > 0) this.queued.push(entry);
    else this.view.prompt(shown);
    this.turns += 1;
    const consumer = this.run(entry).finally(() => {
      this.turns -= 1;
      this.consumers.delete(consumer);
      this.draw();
    });
    this.consumers.add(consumer);
  }

  /** One prompt's turn, from waiting for the one before to its end. */
  private async run(entry: { text: string; shown: string }): Promise<void> {
    const { session, maxTurns, cwd } = this.options;
    const reading = this.expanding.then(async () => {
      // The permission rules apply to a mention as to the Read tool: a denied file is not sent.
      const gate =
        findMentions(entry.text).length > 0
          ? (await session.assembly().catch(() => undefined))?.gate
          : undefined;
      return expandMentions(
        entry.text,
        cwd,
        (file) => {
          const verdict = gate?.evaluate("Read", { file_path: file });
          return verdict?.behavior === "deny" ? verdict.message : undefined;
        },
        (file, why) => this.say(`@${file} was not attached: ${why}`, "error"),
      ).catch((error: unknown) => {
        this.say(
          `The @ mentions were not read: ${error instanceof Error ? error.message : String(error)}`,
          "error",
        );
        return undefined;
      });
    });
    this.expanding = reading;
    const mentioned = await reading;
    const shell = this.shellHistory.splice(0);
    const content =
      shell.length > 0
        ? [...shell, ...(mentioned ?? [{ type: "text" as const, text: entry.text }])]
        : mentioned;
    const userMessageId = randomUuid();
    const batches = session.promptBatches(
      { text: entry.text, ...(content ? { content } : {}) },
      // A prompt sent while a turn runs joins it where it next calls the model (the reference's
      // queued message); one the turn ends before taking runs next (docs/interactive.md).
      { whenBusy: "steer", userMessageId, ...(maxTurns !== undefined ? { maxTurns } : {}) },
    );
    let end: RunEndEvent | undefined;
    let started = false;
    let events = 0;
    let startedAt = Date.now();
    const begin = () => {
      if (started) return;
      started = true;
      startedAt = Date.now();
      this.title(true);
      const index = this.queued.indexOf(entry);
      if (index !== -1) {
        this.queued.splice(index, 1);
        this.view.prompt(entry.shown);
      }
    };
    try {
      while (true) {
        const step = await batches.next();
        begin();
        if (step.done) {
          end = step.value;
          break;
        }
        events += step.value.length;
        for (const event of step.value) this.event(event);
        this.draw();
      }
      // Joined the running turn: shown where it joined (begin() above); that turn goes on.
      if (end === undefined && events === 0) return;
      this.view.end(end);
      if (end && !end.aborted && end.finalText) this.lastAnswer = end.finalText;
      this.activity.ended();
      this.turnEnded(end, Date.now() - startedAt);
    } catch (error) {
      begin();
      this.view.failed(error);
    }
  }

  private event(event: SessionEvent): void {
    if (event.type === "run_start") {
      this.model = event.model;
      return;
    }
    if (event.type === "model_call_end") this.context = contextTokens(event.message.usage);
    if (event.type === "permission_request") {
      const ask = askFor(event.request, this.options.session, this.userFile);
      // Withdrawn when its turn is interrupted or ends: the question goes away unanswered.
      this.options.session.requestSignal(event.request.id)?.addEventListener(
        "abort",
        () => {
          const index = this.asks.indexOf(ask);
          if (index === -1) return;
          this.asks.splice(index, 1);
          const next = this.asks[0];
          if (index === 0 && next) this.showAsk(next);
          this.draw();
        },
        { once: true },
      );
      this.asks.push(ask);
      if (this.asks.length === 1) this.showAsk(ask);
      return;
    }
    this.activity.event(event);
    this.view.event(event);
    // The list as written stays in the conversation, under the call.
    if (event.type === "tool_end" && event.name === "TodoWrite" && !event.outcome.isError)
      for (const row of this.activity.todoRows(this.options.styles, this.width - 4))
        this.commit(row, undefined, "    ", true);
  }

  private showAsk(ask: Ask): void {
    const { styles } = this.options;
    this.notifier.waiting(`cairn: allow ${ask.request.toolName}?`);
    this.commit("", undefined);
    this.view.diffShown.add(ask.request.toolUseId);
    for (const row of ask.details()) {
      if (row.style === "added" || row.style === "removed") continue; // the diff view below, word-marked
      if (row.style === "reason" && ask.request.display.diff)
        for (const diffRow of diffViewRows(ask.request.display.diff, this.width, styles, renderModules()))
          this.commit(diffRow, undefined, "", true);
      this.commit(
        row.text,
        row.style === "title" ? styles.bold : styles.dim,
        row.style === "title" ? "? " : "  ",
      );
    }
  }

  private answer(ask: Ask, answer: Parameters<Session["answer"]>[1]): void {
    this.asks.shift();
    const { styles } = this.options;
    const said =
      ask.said?.(answer, styles) ??
      (answer.behavior === "deny"
        ? styles.red(answer.message.includes("The user said:") ? "denied, with a note" : "denied")
        : answer.updatedPermissions
          ? styles.green("allowed for this session")
          : styles.green("allowed once"));
    this.commit(`${ask.request.toolName}: ${said}`, undefined, "  ");
    this.options.session.answer(ask.request.id, answer);
    const next = this.asks[0];
    if (next) this.showAsk(next);
  }

  private cycleMode(): void {
    const { session } = this.options;
    const current = session.mode ?? "default";
    const next = MODE_CYCLE[(MODE_CYCLE.indexOf(current) + 1) % MODE_CYCLE.length]!;
    session.setMode(next);
  }

  private commit(text: string, style?: (row: string) => string, indent = "", wrapped = false): void {
    const indentWidth = textWidth(indent);
    const rows = wrapped ? [text] : wrapText(text, this.width - indentWidth);
    rows.forEach((row, i) => {
      const prefix = i === 0 ? indent : " ".repeat(indentWidth);
      this.committed.push(prefix + (style ? style(row) : row));
    });
  }

  private flushCommitted(): void {
    if (this.committed.length === 0) return;
    this.renderer.frame(this.committed.splice(0), [], null);
  }

  /** Draws on the next turn of the event loop: a burst of events and keys is one frame. */
  private draw(): void {
    if (this.scheduled || this.exiting) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.exiting) return;
      this.frame();
    });
  }

  private frame(): void {
    const { live, cursor } = this.liveRegion();
    this.renderer.frame(this.committed.splice(0), live, cursor);
  }

  /** The live region, never taller than the screen (less one row); the cursor in the input. */
  private liveRegion(): { live: string[]; cursor: { row: number; col: number } | null } {
    const { styles, terminal } = this.options;
    const width = this.width;
    const above: string[] = [...this.view.tailRows()];
    for (const [id, title] of this.view.running) {
      above.push(styles.dim(truncate(`● ${title}`, width)));
      const subagent = this.activity.subagentRow(id, styles, width);
      if (subagent) above.push(subagent);
    }
    for (const command of this.running.keys())
      above.push(styles.dim(truncate(`● ! ${command} (esc to stop)`, width)));
    if (this.editor.text.startsWith("!"))
      above.push(
        styles.dim(
          truncate("! shell mode: runs as the Bash tool would; its output joins the conversation", width),
        ),
      );
    if (this.turns > 0 && this.asks.length === 0) {
      const status = this.view.retrying ?? (this.view.thinking ? "Thinking…" : "Working…");
      above.push(styles.dim(truncate(`${status} (esc to interrupt)`, width)));
      above.push(...this.activity.todoRows(styles, width - 2).map((row) => `  ${row}`));
    }
    if (this.search) above.push(styles.dim(truncate(this.search.label(), width)));
    for (const entry of this.queued)
      above.push(styles.dim(truncate(`queued › ${printable(entry.shown).replace(/\n/g, " ⏎ ")}`, width)));
    const footer = styles.dim(truncate(this.footer(), width));
    const rule = styles.dim("─".repeat(width));
    const room = Math.max(3, terminal.rows - 1);
    const ask = this.asks[0];
    if (!ask && this.picker) {
      const rows = [...above, rule, ...this.picker.rows(styles, width, room - 2), footer];
      return { live: rows.slice(Math.max(0, rows.length - room)), cursor: null };
    }
    if (ask) {
      const rows = [...above, rule, ...ask.rows(styles, width), footer];
      return { live: rows.slice(Math.max(0, rows.length - room)), cursor: null };
    }
    const layout = layoutEditor(this.editor, width);
    // The editor's rows that fit, around the caret; then whatever of the rest above still fits.
    const editorRoom = Math.max(1, room - 2);
    const first = Math.max(0, Math.min(layout.caret.row - editorRoom + 1, layout.rows.length - editorRoom));
    const editorRows = layout.rows.slice(first, first + editorRoom);
    const aboveRoom = Math.max(0, room - 2 - editorRows.length);
    const shownAbove = above.slice(Math.max(0, above.length - aboveRoom));
    const menuRoom = Math.min(8, aboveRoom);
    const menu = this.slash.open
      ? this.slash.rows(styles, width, menuRoom)
      : this.mentions.open
        ? this.mentions.rows(styles, width, menuRoom)
        : [];
    const live = [...shownAbove.slice(menu.length), rule, ...editorRows, ...menu, footer];
    const cursor = {
      row: Math.max(0, shownAbove.length - menu.length) + 1 + layout.caret.row - first,
      col: layout.caret.col,
    };
    return { live, cursor };
  }

  private footer(): string {
    if (this.hint) return this.hint;
    return footerText({
      model: this.model,
      mode: this.options.session.mode ?? "default",
      context: this.context === undefined ? undefined : { tokens: this.context, window: this.contextWindow },
      cost: this.cost,
      cwd: this.options.cwd,
      branch: this.branch,
    });
  }

  /** A turn ended: its cost counted, the branch read again (a command may have switched it), a notice if it was long. */
  private turnEnded(end: RunEndEvent | undefined, durationMs: number): void {
    if (end)
      this.cost =
        this.cost === null || end.totalCostUsd === null ? null : (this.cost ?? 0) + end.totalCostUsd;
    this.branch = gitBranch(this.options.cwd);
    if (this.turns <= 1) this.title(false);
    this.notifier.turnEnded(durationMs, end?.isError ? "cairn: the turn failed" : "cairn: the turn is done");
  }

  /** The terminal's title (OSC 0), `●` in front while a turn runs; the old title comes back at exit. */
  private title(busy = false): void {
    this.options.terminal.write(titleSequence(this.options.cwd, busy));
  }
}
