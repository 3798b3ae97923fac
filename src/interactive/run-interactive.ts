import type { ReadStream, WriteStream } from "node:tty";
import { resolveCairnHome } from "../permissions/home.js";
import type { InteractiveLaunch } from "../session/launch.js";
import { Session } from "../session/session.js";
import { killRunProcessesOnExit } from "../tools/run-processes.js";
import { InteractiveApp } from "./app.js";
import { consoleGlyphs } from "./console-glyphs.js";
import { runLineMode } from "./line-mode.js";
import { historyFile } from "./prompt-history.js";
import { loadRenderModules } from "./render-modules.js";
import { notifySettings } from "./status.js";
import { stylesFor } from "./style.js";
import { TerminalIo } from "./terminal.js";
import { measuredWithout } from "./text-width.js";
import { rememberTrust, trustNeeded, trustQuestion } from "./workspace-trust.js";

/**
 * `cairn` at a terminal (docs/interactive.md): a session driven from the keyboard until the user
 * leaves; the first prompt, when given on the command line, is sent at once. With
 * `--screen-reader` or `TERM=dumb`, plain lines without redraws (line-mode.ts). Resolves with the
 * exit code: 0, or the signal's (129, 130, 143) when one ended it.
 */
export async function runInteractive(launch: InteractiveLaunch): Promise<number> {
  const { interrupts } = launch;
  // Files the tools change are saved first, for Esc Esc's rewind (in memory without a transcript).
  const setup = { ...launch.setup, fileCheckpointing: true };
  const session = new Session(setup);
  let cancelExitKill = () => {};
  // The run is assembled at once (the footer names its model; MCP servers start while the user
  // types) — on a terminal, once the first frame is drawn; a failure is shown, and said again by
  // the first prompt.
  const assemble = () =>
    session.assembly().then(
      (run) => {
        // A forced exit (a second signal) still kills what the run's commands left behind.
        if (run.sandbox) cancelExitKill = killRunProcessesOnExit(run.sandbox.runTag, setup.env);
        return run;
      },
      (error: unknown) => error as Error,
    );
  try {
    if (launch.screenReader || setup.env.TERM === "dumb") {
      void assemble();
      await runLineMode({
        session,
        prompt: launch.prompt,
        maxTurns: launch.maxTurns,
        signal: interrupts.signal,
      });
      return interrupts.exitCode ?? 0;
    }
    const terminal = new TerminalIo(
      process.stdin as ReadStream,
      process.stdout as WriteStream,
      setup.env.TERM === "linux" ? consoleGlyphs : undefined,
    );
    const app = new InteractiveApp({
      session,
      terminal,
      styles: stylesFor(setup.env),
      notify: notifySettings(setup.env),
      cwd: setup.cwd,
      model: undefined,
      maxTurns: launch.maxTurns,
      historyFile: historyFile(resolveCairnHome(setup.env), setup.cwd),
      env: setup.env,
      openSession: (resume) =>
        new Session({
          ...setup,
          opening: {
            // SessionStart hooks of a session that replaces a cleared one get `source: "clear"`.
            ...(resume !== undefined ? { resume } : { cleared: true }),
            ...(setup.opening.persist !== undefined ? { persist: setup.opening.persist } : {}),
          },
        }),
    });
    const stop = () => void app.stop();
    interrupts.signal.addEventListener("abort", stop, { once: true });
    try {
      app.start(undefined);
      // What the workspace brings that would run on this machine is asked about before the run is
      // assembled (hooks, MCP servers); the answer is remembered in the user config.
      const needed = await trustNeeded(setup).catch(() => undefined);
      if (needed) {
        app.say(trustQuestion(needed));
        const trust = await Promise.race([
          app.pick("Trust this workspace?", [
            { label: "Yes, trust this workspace (remembered in the user config)", value: true },
            { label: "No: run without its hooks and MCP servers", value: false },
          ]),
          app.done.then(() => false),
        ]);
        if (trust === true) await rememberTrust(needed).catch(() => undefined);
      }
      void assemble().then((run) => app.assembled(run));
      await app.showHistory();
      // A first prompt with text that only string-width measures waits for it (text-width.ts).
      if (launch.prompt !== undefined && !measuredWithout(launch.prompt)) await loadRenderModules();
      app.sendFirst(launch.prompt);
      await app.done;
    } finally {
      interrupts.signal.removeEventListener("abort", stop);
      terminal.restore();
    }
    return interrupts.exitCode ?? 0;
  } finally {
    await session.close();
    cancelExitKill();
  }
}
