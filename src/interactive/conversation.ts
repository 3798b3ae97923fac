import type { RunEndEvent } from "../engine/events.js";
import { ServerSearchEvents } from "../engine/server-search.js";
import { WEB_SEARCH_TOOL } from "../engine/server-tools.js";
import type { SessionEvent } from "../session/events.js";
import type { Session } from "../session/session.js";
import type { ToolDisplay } from "../tools/types.js";
import { diffViewRows } from "./diff-view.js";
import { MarkdownStream } from "./markdown-stream.js";
import { isCollapsed, outputRows } from "./output-tail.js";
import { renderModules } from "./render-modules.js";
import type { Styles } from "./style.js";
import { printable, truncate } from "./text-width.js";

/** Rows for the scrollback, styled as a whole (wrapping happens before styling). */
export type Commit = (
  text: string,
  style?: (row: string) => string,
  indent?: string,
  /** `text` is one row already wrapped to the width. */
  wrapped?: boolean,
) => void;

/**
 * The conversation as the session's events tell it: finished text, tool calls and notices are
 * committed (written once into the scrollback); what is still going on (the line being streamed,
 * the tools running, a retry) is state the live region shows.
 */
export class ConversationView {
  /** The text block being streamed: its finished markdown blocks are committed, the rest is live. */
  private text: MarkdownStream | undefined;
  /** Tools running now: their one-line titles, by tool-use id. */
  readonly running = new Map<string, string>();
  thinking = false;
  retrying: string | undefined;
  /** Tool calls whose diff a permission question showed already (not shown again with the result). */
  readonly diffShown = new Set<string>();
  /** The last command output shown collapsed: Ctrl+O writes it whole (`expandOutput`). */
  private collapsed: { title: string; output: string } | undefined;
  /** The diff each running Write or Edit makes, by tool-use id (read before it runs). */
  private readonly diffs = new Map<string, NonNullable<ToolDisplay["diff"]>>();
  /** Block types of the model message being streamed, by index. */
  private readonly blocks = new Map<number, string>();
  /** Text was streamed for the message's text blocks (else `assistant_block` brings it whole). */
  private streamed = false;
  /** The provider's searches, shown as WebSearch calls (src/engine/server-search.ts). */
  private readonly searches = new ServerSearchEvents();

  constructor(
    private readonly session: Session,
    private readonly styles: Styles,
    private readonly commit: Commit,
    private readonly width: () => number,
  ) {}

  /** The user's prompt, as sent. */
  prompt(text: string): void {
    this.commit("", undefined);
    this.commit(printable(text), (row) => this.styles.bold(row), "› ");
  }

  event(event: SessionEvent): void {
    switch (event.type) {
      case "stream": {
        const stream = event.event;
        if (stream.type === "message_start") {
          this.blocks.clear();
          this.streamed = false;
        } else if (stream.type === "content_block_start") {
          this.blocks.set(stream.index, stream.content_block.type);
          this.thinking = stream.content_block.type === "thinking";
          if (stream.content_block.type === "text") this.startText();
        } else if (stream.type === "content_block_delta" && stream.delta.type === "text_delta") {
          this.streamed = true;
          this.retrying = undefined;
          this.addText(stream.delta.text);
        } else if (stream.type === "content_block_stop") {
          if (this.blocks.get(stream.index) === "text") this.endText();
          this.thinking = false;
        }
        return;
      }
      case "assistant_block": {
        // A search the provider ran: shown as a WebSearch call, with the results it found.
        const search = this.searches.of(event, Date.now());
        if (search) {
          this.event(search);
          return;
        }
        // A provider that sent the block without deltas (or a retry whose deltas were dropped).
        if (event.block.type === "text" && !this.streamed && event.block.text !== "") {
          this.startText();
          this.addText(event.block.text);
          this.endText();
        }
        return;
      }
      case "tool_start": {
        this.endText();
        const display = this.session.describe(event.name, event.input, { live: true });
        this.running.set(event.toolUseId, this.titleOf(display));
        if (display.diff) this.diffs.set(event.toolUseId, display.diff);
        return;
      }
      case "tool_end": {
        const title = this.running.get(event.toolUseId) ?? this.title(event.name, event.input, false);
        this.running.delete(event.toolUseId);
        const { outcome } = event;
        const diff = this.diffs.get(event.toolUseId);
        this.diffs.delete(event.toolUseId);
        if (!outcome.isError) {
          this.commit(`${title}`, (row) => row, `${this.styles.green("✓")} `);
          if (diff && !this.diffShown.has(event.toolUseId))
            for (const row of diffViewRows(diff, this.width(), this.styles, renderModules()))
              this.commit(row, undefined, "", true);
          this.diffShown.delete(event.toolUseId);
          if (event.name === "Bash") this.commandOutput(title, outcome.content);
          if (event.name === WEB_SEARCH_TOOL) this.searchResults(outcome.data);
          return;
        }
        this.diffShown.delete(event.toolUseId);
        const why =
          outcome.errorKind === "denied"
            ? "denied"
            : firstLine(outcome.content) || outcome.errorKind || "failed";
        this.commit(`${title} — ${why}`, (row) => this.styles.red(row), `${this.styles.red("✗")} `);
        return;
      }
      case "model_call_retry":
        this.retrying = `model call failed (${event.errorStatus ?? event.error}); retrying, attempt ${event.attempt} of ${event.maxRetries + 1}`;
        return;
      case "model_fallback":
        this.commit(
          `${event.from} is unavailable; continuing with ${event.to}`,
          (row) => this.styles.yellow(row),
          "! ",
        );
        return;
      case "session_notice":
        this.commit(event.content, (row) => this.styles.yellow(row), "! ");
        return;
      case "hook_result":
        if (event.record.systemMessage)
          this.commit(event.record.systemMessage, (row) => this.styles.dim(row), "  ");
        if (event.record.error)
          this.commit(
            `${event.record.event} hook ${event.record.hookName} failed: ${event.record.error}`,
            (row) => this.styles.red(row),
            "! ",
          );
        return;
      case "compact_boundary":
        this.commit("The conversation was compacted.", (row) => this.styles.dim(row), "  ");
        return;
      default:
        return;
    }
  }

  /** The turn ended: what was streamed is committed, and an error or interruption said. */
  end(end: RunEndEvent | undefined): void {
    this.endText();
    this.running.clear();
    this.diffs.clear();
    this.thinking = false;
    this.retrying = undefined;
    if (end?.aborted) this.commit("Interrupted.", (row) => this.styles.yellow(row), "  ");
    else if (end?.isError)
      this.commit(
        end.errors.join("; ") || `the turn failed (${end.subtype})`,
        (row) => this.styles.red(row),
        "! ",
      );
  }

  /** The turn could not start or failed outside the engine (a config error). */
  failed(error: unknown): void {
    this.end(undefined);
    this.commit(error instanceof Error ? error.message : String(error), (row) => this.styles.red(row), "! ");
  }

  /** Writes the whole of the last collapsed command output into the conversation (Ctrl+O). */
  expandOutput(): boolean {
    const last = this.collapsed;
    if (!last) return false;
    this.collapsed = undefined;
    this.commit(`Output of ${last.title}:`, (row) => this.styles.dim(row), "  ");
    for (const row of outputRows(last.output, this.width(), this.styles, true))
      this.commit(row, undefined, "", true);
    return true;
  }

  /** A search's results under its line: each title and URL, dimmed. */
  private searchResults(data: unknown): void {
    const results = (data as { results?: { title?: unknown; url?: unknown }[] } | undefined)?.results ?? [];
    for (const result of results)
      this.commit(
        `${printable(String(result.title ?? ""))} — ${printable(String(result.url ?? ""))}`,
        (row) => this.styles.dim(row),
        "    ",
      );
  }

  /** A command's output under its line: its last lines (output-tail.ts). */
  private commandOutput(title: string, output: string): void {
    for (const row of outputRows(output, this.width(), this.styles)) this.commit(row, undefined, "", true);
    if (isCollapsed(output)) this.collapsed = { title, output };
  }

  /** Rows of the markdown block being streamed, for the live region. */
  tailRows(): string[] {
    return this.text?.liveRows(this.width()) ?? [];
  }

  title(name: string, input: Record<string, unknown>, live: boolean): string {
    return this.titleOf(this.session.describe(name, input, { live }));
  }

  private titleOf(display: ToolDisplay): string {
    return truncate(printable(display.title).replace(/\n/g, " "), 200);
  }

  private startText(): void {
    this.endText();
    this.commit("", undefined);
    this.text = new MarkdownStream(this.styles, renderModules);
  }

  /** Blocks the text finished go to the scrollback now (markdown-stream.ts). */
  private addText(text: string): void {
    this.text ??= new MarkdownStream(this.styles, renderModules);
    for (const row of this.text.push(text, this.width())) this.commit(row, undefined, "", true);
  }

  private endText(): void {
    if (!this.text) return;
    for (const row of this.text.finish(this.width())) this.commit(row, undefined, "", true);
    this.text = undefined;
  }
}

function firstLine(text: string): string {
  return truncate(printable(text).trim().split("\n")[0] ?? "", 160);
}
