import type { InteractiveApp } from "./app.js";
import { osc52 } from "./osc52.js";
import { rewind as rewindTo } from "./rewind.js";
import { saveAllowRules } from "./save-rule.js";
import { runShellCommand, shellRecords } from "./shell-mode.js";
import { findBuiltin, type SlashHost } from "./slash-commands.js";

/**
 * What the interactive app runs besides prompts (app.ts): `/` commands through their host, `!`
 * commands, the session swap of `/clear` and `/resume`, the rewind picker, "always allow" rules.
 */

/** A `/` command: a built-in runs here; the session's own commands and skills are prompts. */
export async function runCommand(
  app: InteractiveApp,
  name: string,
  args: string,
  text: string,
): Promise<void> {
  const builtin = findBuiltin(name);
  try {
    if (builtin) {
      if (!builtin.prompt) app.view.prompt(text);
      await builtin.run(args, app.slashHost());
    } else if ((await app.slash.all()).some((entry) => entry.name === name || entry.aliases.includes(name)))
      app.submit(text);
    else {
      app.view.prompt(text);
      app.say(`Unknown command /${name} (/help lists them).`, "error");
    }
  } catch (error) {
    app.say(error instanceof Error ? error.message : String(error), "error");
  }
  app.draw();
}

/** `!command` (shell-mode.ts): its output is shown, and joins the conversation (and the transcript) at once. */
export async function runShell(app: InteractiveApp, command: string): Promise<void> {
  const { styles } = app.options;
  app.commit("", undefined);
  app.commit(command, styles.bold, "! ");
  const abort = new AbortController();
  app.shellAbort = abort;
  app.running.set(command, true);
  app.draw();
  try {
    const result = await runShellCommand(command, app.options.session, abort.signal, (reason) =>
      app
        .pick(`Run \`${command}\`? ${reason}`, [
          { label: "No", value: false },
          { label: "Yes, run it", value: true },
        ])
        .then((yes) => yes === true),
    );
    if (result.ran) {
      const output = [result.stdout, result.stderr].map((part) => part.replace(/\n$/, "")).filter(Boolean);
      if (output.length === 0) app.commit("(no output)", styles.dim, "  ");
      // The last 200 lines on the screen; the model gets all of it (as the Bash tool keeps it).
      for (const line of output.join("\n").split("\n").slice(-200)) app.commit(line, undefined, "  ");
      if (result.note) app.commit(result.note, styles.yellow, "  ");
    } else app.commit(`Not run: ${result.why}`, styles.red, "  ");
    // In the conversation and the transcript at once, as the reference keeps it; while a turn runs
    // (its tool calls and results stay together), with the next prompt.
    const records = shellRecords(command, result);
    const added = await app.options.session.addUserMessage(records).catch((error: unknown) => {
      app.commit(error instanceof Error ? error.message : String(error), styles.red, "  ");
      return false;
    });
    if (!added) app.shellHistory.push(...records);
  } catch (error) {
    app.commit(error instanceof Error ? error.message : String(error), styles.red, "  ");
  } finally {
    app.running.delete(command);
    if (app.shellAbort === abort) app.shellAbort = undefined;
    app.draw();
  }
}

/** "Always allow": the rules go into the user config (save-rule.ts), said once saved. */
export function saveRules(app: InteractiveApp, rules: string[]): void {
  const file = app.userFile;
  if (!file) return;
  saveAllowRules(file, rules).then(
    () => app.say(`Saved ${rules.join(", ")} to permissions.allow in ${file}.`, "dim"),
    (error: unknown) =>
      app.say(
        `${rules.join(", ")} was not saved: ${error instanceof Error ? error.message : String(error)}`,
        "error",
      ),
  );
}

export function slashHost(app: InteractiveApp): SlashHost {
  return {
    get session() {
      return app.options.session;
    },
    cwd: app.options.cwd,
    env: app.options.env ?? {},
    modelChanged: (model) => {
      app.model = model;
    },
    say: (text, tone) => app.say(text, tone),
    send: (text, shown) => app.submit(text, shown),
    newSession: (resume) => app.replaceSession(resume),
    pick: (title, items, start) => app.pick(title, items, start),
    copy: (text) => app.options.terminal.write(osc52(text, app.options.env ?? {})),
    lastAnswer: () => app.lastAnswer,
    rewind: () => app.rewind(),
    quit: () => void app.stop(),
    commands: () => app.slash.all(),
  };
}

/** `/clear` and `/resume`: the session ends (its SessionEnd hooks run) and another takes its place. */
export async function replaceSession(app: InteractiveApp, resume?: string): Promise<void> {
  const { openSession } = app.options;
  if (!openSession) throw new Error("This session cannot be replaced.");
  if (app.turns > 0) throw new Error("Wait for the running turn to end (or press Esc), then try again.");
  const old = app.options.session;
  // The reference's SessionEnd reasons: `clear` for /clear, `resume` when another session is resumed.
  for await (const event of old.end(resume !== undefined ? "resume" : "clear")) app.view.event(event);
  await old.close();
  app.options.session = openSession(resume);
  if (resume !== undefined) await app.showHistory();
  app.slash.reset();
  app.lastAnswer = undefined;
  app.model = undefined;
  void app.options.session.currentModel().then(
    (model) => {
      app.model = model.model;
      app.draw();
    },
    () => {},
  );
}

/** Esc Esc and `/rewind` (rewind.ts): back to an earlier prompt, its text back in the input. */
export function rewind(app: InteractiveApp): void {
  if (app.turns > 0) {
    app.say("Wait for the running turn to end (or press Esc), then rewind.", "dim");
    return;
  }
  rewindTo(app.options.session, (title, items) => app.pick(title, items)).then(
    (done) => {
      if (!done) return;
      for (const line of done.said) app.say(line, "dim");
      if (done.prompt !== undefined) app.editor.set(done.prompt);
      app.draw();
    },
    (error: unknown) => app.say(error instanceof Error ? error.message : String(error), "error"),
  );
}
