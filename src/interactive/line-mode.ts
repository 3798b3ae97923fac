import { createInterface } from "node:readline";
import type { RunEndEvent } from "../engine/events.js";
import type { PermissionAnswer, PermissionRequest, SessionEvent } from "../session/events.js";
import type { Session } from "../session/session.js";
import { asksUserOf } from "./ask-for.js";
import { diffLines } from "./diff-rows.js";
import { drawHistory } from "./history-rows.js";
import { LineQuestion } from "./line-questions.js";
import { mcpCallRows } from "./mcp-call-rows.js";
import { MemoryReclaim } from "./memory-reclaim.js";
import { stylesFor } from "./style.js";
import { printable } from "./text-width.js";

export type LineModeOptions = {
  session: Session;
  prompt: string | undefined;
  maxTurns: number | undefined;
  signal: AbortSignal;
};

/**
 * The interactive mode for `--screen-reader` and `TERM=dumb`: plain lines in, plain lines out, in
 * the order they happen; nothing is redrawn, no cursor moves, no spinner, no box art, no colour.
 * Each line read is a prompt (sent while a turn runs, it waits for it); a permission question
 * takes the next line as its answer (`y`, `a`, `n`; a question to the user, its own answers:
 * src/interactive/line-questions.ts). End of input (Ctrl+D) leaves.
 */
export async function runLineMode({ session, prompt, maxTurns, signal }: LineModeOptions): Promise<void> {
  const out = (text: string) => process.stdout.write(text);
  // A long session's memory stays flat here as on the full screen (memory-reclaim.ts).
  const memory = new MemoryReclaim();
  // A resumed session's conversation first, as plain lines (history-rows.ts); stdin waits meanwhile.
  await printResumed(session, out);
  const lines = createInterface({ input: process.stdin, terminal: false });
  const questions: { request: PermissionRequest; form?: LineQuestion }[] = [];
  let turns = Promise.resolve();
  let atLineStart = true;
  const say = (text: string) => {
    out(`${atLineStart ? "" : "\n"}${text}\n`);
    atLineStart = true;
  };
  const ask = ({ request, form }: { request: PermissionRequest; form?: LineQuestion }) => {
    if (form) {
      for (const line of form.lines()) say(line);
      return;
    }
    say(`Permission: ${printable(request.display.title)}`);
    for (const line of mcpCallRows(request.toolName, request.input) ?? []) say(line);
    if (request.display.diff)
      for (const line of diffLines(request.display.diff)) say(`${line.sign} ${printable(line.text)}`);
    say(printable(request.reason));
    say(`Allow? y = yes once${request.suggestions.length > 0 ? ", a = yes for this session" : ""}, n = no`);
  };
  const event = (item: SessionEvent) => {
    if (
      item.type === "stream" &&
      item.event.type === "content_block_delta" &&
      item.event.delta.type === "text_delta"
    ) {
      const text = printable(item.event.delta.text);
      if (text !== "") {
        out(text);
        atLineStart = text.endsWith("\n");
      }
    } else if (item.type === "tool_start") {
      say(`Tool: ${printable(session.describe(item.name, item.input, { live: true }).title)}`);
    } else if (item.type === "tool_end") {
      say(
        item.outcome.isError
          ? `Tool ${item.name} ${item.outcome.errorKind ?? "failed"}.`
          : `Tool ${item.name} done.`,
      );
    } else if (item.type === "permission_request") {
      const asks = asksUserOf(item.request, session);
      questions.push({
        request: item.request,
        ...(asks ? { form: new LineQuestion(item.request, asks) } : {}),
      });
      if (questions.length === 1) ask(questions[0]!);
    } else if (item.type === "session_notice") say(`Note: ${item.content}`);
  };
  const send = (text: string) => {
    turns = turns.then(async () => {
      say(`You: ${text}`);
      try {
        let end: RunEndEvent | undefined;
        const run = session.prompt(
          { text },
          { whenBusy: "queue", ...(maxTurns !== undefined ? { maxTurns } : {}) },
        );
        while (true) {
          const step = await run.next();
          if (step.done) {
            end = step.value;
            break;
          }
          event(step.value);
        }
        if (end?.aborted) say("Interrupted.");
        else if (end?.isError) say(`Error: ${end.errors.join("; ") || end.subtype}`);
        else say("Done.");
      } catch (error) {
        say(`Error: ${error instanceof Error ? error.message : String(error)}`);
      }
      // After the turn's last line is written: what the collection costs is not in its way.
      setImmediate(() => memory.turnEnded());
    });
  };
  const answer = (line: string) => {
    const question = questions[0]!;
    const choice = line.trim().toLowerCase();
    let reply: PermissionAnswer | undefined;
    if (question.form) {
      const step = question.form.answer(line);
      if ("say" in step) {
        for (const text of step.say) say(text);
        return;
      }
      reply = step.reply;
    } else if (choice === "y") reply = { behavior: "allow" };
    else if (choice === "a" && question.request.suggestions.length > 0)
      reply = { behavior: "allow", updatedPermissions: question.request.suggestions };
    else if (choice === "n") reply = { behavior: "deny", message: "The user rejected this tool call." };
    if (!reply) {
      say("Answer y, a or n.");
      return;
    }
    questions.shift();
    session.answer(question.request.id, reply);
    const next = questions[0];
    if (next) ask(next);
  };
  if (prompt !== undefined && prompt.trim() !== "") send(prompt);
  const ended = new Promise<void>((resolve) => {
    lines.on("line", (line) => {
      if (questions.length > 0) answer(line);
      else if (line.trim() !== "") send(line);
    });
    lines.on("close", resolve);
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await ended;
  lines.close();
  if (signal.aborted) session.stopTurns(signal.reason);
  await turns;
}

/** `--resume` / `--continue` in line mode: the conversation so far, plain, once, before the first prompt. */
async function printResumed(session: Session, out: (text: string) => void): Promise<void> {
  const history = await session.resumedHistory().catch((error: unknown) => {
    out(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
    return [];
  });
  if (history.length === 0) return;
  drawHistory(history, {
    commit: (text, _style, indent = "") => out(`${indent}${text}\n`),
    styles: stylesFor({ NO_COLOR: "1" }),
    width: Number.MAX_SAFE_INTEGER,
    modules: undefined,
    title: (name, input) => printable(session.describe(name, input, { live: false }).title),
  });
}
