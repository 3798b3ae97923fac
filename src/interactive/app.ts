import type { RunEndEvent } from "../engine/events.js";
import type { PromptBlock } from "../engine/messages.js";
import type { AssembledRun } from "../run/assemble.js";
import type { SessionEvent } from "../session/events.js";
import type { Session } from "../session/session.js";
import { ActivityView } from "./activity.js";
import * as commands from "./app-commands.js";
import * as keys from "./app-keys.js";
import * as turns from "./app-turns.js";
import { BackgroundView } from "./background-view.js";
import { ConversationView } from "./conversation.js";
import { Editor } from "./editor.js";
import { drawHistory } from "./history-rows.js";
import type { HistorySearch } from "./history-search.js";
import { type Key, KeyReader } from "./keys.js";
import { ListPicker, type PickerItem } from "./list-picker.js";
import * as live from "./live-region.js";
import { MemoryReclaim } from "./memory-reclaim.js";
import { MentionMenu } from "./mentions.js";
import { PastedTexts } from "./pasted-texts.js";
import { PromptHistory } from "./prompt-history.js";
import type { Ask } from "./question-picker.js";
import { loadRenderModules } from "./render-modules.js";
import { InlineRenderer } from "./renderer.js";
import { parseSlash, type SlashHost, SlashMenu } from "./slash-commands.js";
import { gitBranch, Notifier, type NotifySettings, titleSequence } from "./status.js";
import type { Styles } from "./style.js";
import type { TerminalIo } from "./terminal.js";
import { textWidth, wrapText } from "./text-width.js";

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
 *
 * This class holds the state and the drawing; its jobs live beside it as functions of the app:
 * keys (app-keys.ts), turns and their events (app-turns.ts), commands, `!` and session swaps
 * (app-commands.ts), the live region's layout (live-region.ts). Its fields are theirs to read and
 * change (no other module uses them).
 */
export class InteractiveApp {
  readonly renderer: InlineRenderer;
  readonly keyReader = new KeyReader();
  readonly memory = new MemoryReclaim();
  readonly editor = new Editor();
  readonly history: PromptHistory;
  search: HistorySearch | undefined;
  readonly slash = new SlashMenu(
    () => this.options.session,
    () => {
      this.slash.update(this.editor.text);
      this.draw();
    },
  );
  readonly mentions: MentionMenu;
  /** Each prompt's `@` mentions are read in the order the prompts were sent. */
  expanding: Promise<unknown> = Promise.resolve();
  picker: ListPicker<unknown> | undefined;
  /** `!` commands' records, sent before the next prompt; the running one's abort. */
  readonly shellHistory: PromptBlock[] = [];
  shellAbort: AbortController | undefined;
  lastAnswer: string | undefined;
  /** The user config, where "always allow" saves (read once the session's config is). */
  userFile: string | undefined;
  /** Esc was pressed with nothing running: the next Esc rewinds. */
  rewindArmed = false;
  /** `!` commands running, shown as running tools are. */
  readonly running = new Map<string, true>();
  readonly pasted = new PastedTexts();
  readonly view: ConversationView;
  readonly activity: ActivityView;
  /** The model's background shells while they run. */
  readonly background = new BackgroundView(() => this.draw());
  readonly notifier: Notifier;
  readonly notifyWarnings: string[];
  /** The footer's facts besides the model and mode: context used, cost so far, git branch. */
  contextWindow: number | undefined;
  context: number | undefined;
  cost: number | null | undefined;
  branch: string | undefined;
  /** Rows waiting to be written into the scrollback with the next frame. */
  committed: string[] = [];
  /** Prompts sent while a turn runs, shown until their turn starts. */
  readonly queued: { text: string; shown: string }[] = [];
  readonly asks: Ask[] = [];
  /** Turns started or waiting. */
  turns = 0;
  /** The running turns' consumers, awaited at exit. */
  readonly consumers = new Set<Promise<void>>();
  model: string | undefined;
  /** Ctrl+C was pressed with nothing to clear: the next one exits. */
  exitArmed = false;
  hint: string | undefined;
  scheduled = false;
  escapeTimer: NodeJS.Timeout | undefined;
  exiting = false;
  historyBroken = false;
  finished!: () => void;
  /** Resolves when the user leaves (Ctrl+D, Ctrl+C twice) or `stop()` is called. */
  readonly done = new Promise<void>((resolve) => {
    this.finished = resolve;
  });

  constructor(readonly options: AppOptions) {
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
    this.options.terminal.eraseLive = () => this.renderer.closing();
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
      // A new session (nearly every start) waits for nothing: its first prompt goes at once.
      const history = await session.resumedHistory();
      const modules = history.length > 0 ? await loadRenderModules() : undefined;
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

  get width(): number {
    // One column short of the screen: a full row would leave the cursor in pending-wrap state.
    return Math.max(10, this.options.terminal.columns - 1);
  }

  input(raw: string): void {
    const data = this.notifier.focusIn(raw);
    if (data === "") return;
    clearTimeout(this.escapeTimer);
    for (const key of this.keyReader.feed(data)) this.key(key);
    this.slash.update(this.editor.text);
    this.mentions.update(this.editor);
    if (this.keyReader.waiting)
      this.escapeTimer = setTimeout(() => {
        for (const key of this.keyReader.flush()) this.key(key);
        this.draw();
      }, ESCAPE_WAIT_MS);
    this.draw();
  }

  key(key: Key): void {
    keys.key(this, key);
  }

  interrupt(ctrlC: boolean): void {
    keys.interrupt(this, ctrlC);
  }

  disarm(): void {
    keys.disarm(this);
  }

  submitEditor(): void {
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
  remember(text: string): void {
    this.history.add(text).catch((error: unknown) => this.historyFailed(error));
  }

  historyFailed(error: unknown): void {
    if (this.historyBroken) return;
    this.historyBroken = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.commit(`The prompt history is not kept: ${reason}`, this.options.styles.red);
    this.draw();
  }

  runCommand(name: string, args: string, text: string): Promise<void> {
    return commands.runCommand(this, name, args, text);
  }

  runShell(command: string): Promise<void> {
    return commands.runShell(this, command);
  }

  saveRules(rules: string[]): void {
    commands.saveRules(this, rules);
  }

  /** A notice in the conversation (the scrollback), wrapped. */
  say(text: string, tone: "plain" | "dim" | "error" = "plain"): void {
    const { styles } = this.options;
    const style = tone === "error" ? styles.red : tone === "dim" ? styles.dim : undefined;
    for (const line of text.split("\n")) this.commit(line, style, "  ");
    this.draw();
  }

  slashHost(): SlashHost {
    return commands.slashHost(this);
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

  replaceSession(resume?: string): Promise<void> {
    return commands.replaceSession(this, resume);
  }

  rewind(): void {
    commands.rewind(this);
  }

  searchKey(search: HistorySearch, key: Key): boolean {
    return keys.searchKey(this, search, key);
  }

  submit(text: string, shown = text): void {
    turns.submit(this, text, shown);
  }

  run(entry: { text: string; shown: string }): Promise<void> {
    return turns.run(this, entry);
  }

  event(event: SessionEvent): void {
    turns.event(this, event);
  }

  showAsk(ask: Ask): void {
    turns.showAsk(this, ask);
  }

  answer(ask: Ask, answer: Parameters<Session["answer"]>[1]): void {
    turns.answer(this, ask, answer);
  }

  cycleMode(): void {
    keys.cycleMode(this);
  }

  commit(text: string, style?: (row: string) => string, indent = "", wrapped = false): void {
    const indentWidth = textWidth(indent);
    const rows = wrapped ? [text] : wrapText(text, this.width - indentWidth);
    rows.forEach((row, i) => {
      const prefix = i === 0 ? indent : " ".repeat(indentWidth);
      this.committed.push(prefix + (style ? style(row) : row));
    });
  }

  flushCommitted(): void {
    if (this.committed.length === 0) return;
    this.renderer.frame(this.committed.splice(0), [], null);
  }

  /** Draws on the next turn of the event loop: a burst of events and keys is one frame. */
  draw(): void {
    if (this.scheduled || this.exiting) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.exiting) return;
      this.frame();
    });
  }

  frame(): void {
    const { live, cursor } = this.liveRegion();
    this.renderer.frame(this.committed.splice(0), live, cursor);
  }

  liveRegion(): { live: string[]; cursor: { row: number; col: number } | null } {
    return live.liveRegion(this);
  }

  footer(): string {
    return live.footer(this);
  }

  turnEnded(end: RunEndEvent | undefined, durationMs: number): void {
    turns.turnEnded(this, end, durationMs);
  }

  /** The terminal's title (OSC 0), `●` in front while a turn runs; the old title comes back at exit. */
  title(busy = false): void {
    this.options.terminal.write(titleSequence(this.options.cwd, busy));
  }
}
