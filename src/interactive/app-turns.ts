import type { RunEndEvent } from "../engine/events.js";
import type { SessionEvent } from "../session/events.js";
import type { Session } from "../session/session.js";
import { randomUuid } from "../util/random-id.js";
import type { InteractiveApp } from "./app.js";
import { askFor } from "./ask-for.js";
import { diffViewRows } from "./diff-view.js";
import { expandMentions, findMentions } from "./mentions.js";
import type { Ask } from "./question-picker.js";
import { renderModules } from "./render-modules.js";
import { contextTokens, gitBranch } from "./status.js";

/**
 * The interactive app's turns (app.ts): a prompt sent (or queued), its `@` mentions read, its
 * events drawn, permission questions shown and answered, the footer's figures after it ends.
 */
export function submit(app: InteractiveApp, text: string, shown = text): void {
  const entry = { text, shown };
  if (app.turns > 0) app.queued.push(entry);
  else app.view.prompt(shown);
  app.turns += 1;
  const consumer = app.run(entry).finally(() => {
    app.turns -= 1;
    app.consumers.delete(consumer);
    app.draw();
  });
  app.consumers.add(consumer);
}

/** One prompt's turn, from waiting for the one before to its end. */
export async function run(app: InteractiveApp, entry: { text: string; shown: string }): Promise<void> {
  const { session, maxTurns, cwd } = app.options;
  const reading = app.expanding.then(async () => {
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
      (file, why) => app.say(`@${file} was not attached: ${why}`, "error"),
    ).catch((error: unknown) => {
      app.say(
        `The @ mentions were not read: ${error instanceof Error ? error.message : String(error)}`,
        "error",
      );
      return undefined;
    });
  });
  app.expanding = reading;
  const mentioned = await reading;
  const shell = app.shellHistory.splice(0);
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
    app.title(true);
    const index = app.queued.indexOf(entry);
    if (index !== -1) {
      app.queued.splice(index, 1);
      app.view.prompt(entry.shown);
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
      for (const event of step.value) app.event(event);
      app.draw();
    }
    // Joined the running turn: shown where it joined (begin() above); that turn goes on.
    if (end === undefined && events === 0) return;
    app.view.end(end);
    if (end && !end.aborted && end.finalText) app.lastAnswer = end.finalText;
    app.activity.ended();
    app.turnEnded(end, Date.now() - startedAt);
  } catch (error) {
    begin();
    app.view.failed(error);
  }
}

export function event(app: InteractiveApp, event: SessionEvent): void {
  if (event.type === "run_start") {
    app.model = event.model;
    return;
  }
  if (event.type === "model_call_end") app.context = contextTokens(event.message.usage);
  if (event.type === "permission_request") {
    const ask = askFor(event.request, app.options.session, app.userFile);
    // Withdrawn when its turn is interrupted or ends: the question goes away unanswered.
    app.options.session.requestSignal(event.request.id)?.addEventListener(
      "abort",
      () => {
        const index = app.asks.indexOf(ask);
        if (index === -1) return;
        app.asks.splice(index, 1);
        const next = app.asks[0];
        if (index === 0 && next) app.showAsk(next);
        app.draw();
      },
      { once: true },
    );
    app.asks.push(ask);
    if (app.asks.length === 1) app.showAsk(ask);
    return;
  }
  app.activity.event(event);
  app.view.event(event);
  // The list as written stays in the conversation, under the call.
  if (event.type === "tool_end" && event.name === "TodoWrite" && !event.outcome.isError)
    for (const row of app.activity.todoRows(app.options.styles, app.width - 4))
      app.commit(row, undefined, "    ", true);
}

export function showAsk(app: InteractiveApp, ask: Ask): void {
  const { styles } = app.options;
  app.notifier.waiting(`cairn: allow ${ask.request.toolName}?`);
  app.commit("", undefined);
  app.view.diffShown.add(ask.request.toolUseId);
  for (const row of ask.details()) {
    if (row.style === "added" || row.style === "removed") continue; // the diff view below, word-marked
    if (row.style === "reason" && ask.request.display.diff)
      for (const diffRow of diffViewRows(ask.request.display.diff, app.width, styles, renderModules()))
        app.commit(diffRow, undefined, "", true);
    app.commit(
      row.text,
      row.style === "title" ? styles.bold : styles.dim,
      row.style === "title" ? "? " : "  ",
    );
  }
}

export function answer(app: InteractiveApp, ask: Ask, answer: Parameters<Session["answer"]>[1]): void {
  app.asks.shift();
  const { styles } = app.options;
  const said =
    ask.said?.(answer, styles) ??
    (answer.behavior === "deny"
      ? styles.red(answer.message.includes("The user said:") ? "denied, with a note" : "denied")
      : answer.updatedPermissions
        ? styles.green("allowed for this session")
        : styles.green("allowed once"));
  app.commit(`${ask.request.toolName}: ${said}`, undefined, "  ");
  app.options.session.answer(ask.request.id, answer);
  const next = app.asks[0];
  if (next) app.showAsk(next);
}

/** A turn ended: its cost counted, the branch read again (a command may have switched it), a notice if it was long. */
export function turnEnded(app: InteractiveApp, end: RunEndEvent | undefined, durationMs: number): void {
  if (end)
    app.cost = app.cost === null || end.totalCostUsd === null ? null : (app.cost ?? 0) + end.totalCostUsd;
  app.branch = gitBranch(app.options.cwd);
  if (app.turns <= 1) app.title(false);
  app.notifier.turnEnded(durationMs, end?.isError ? "cairn: the turn failed" : "cairn: the turn is done");
  // After the turn's last frame (drawn on the next turn of the event loop): memory-reclaim.ts.
  setTimeout(() => app.memory.turnEnded(), 0);
}
