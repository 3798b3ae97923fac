import { statSync } from "node:fs";
import { runAgent } from "../engine/agent.js";
import type { RunEndEvent } from "../engine/events.js";
import type { CliOptions } from "./args.js";
import { EXIT, UsageError } from "./exit-codes.js";
import { jsonProjection } from "./formats/json.js";
import { streamJsonProjection } from "./formats/stream-json.js";
import { textProjection } from "./formats/text.js";
import type { Projection } from "./formats/types.js";
import { StdoutWriter } from "./output.js";

export type PrintOptions = CliOptions & { prompt: string; cwd: string };

function projectionFor(options: PrintOptions): Projection {
  switch (options.outputFormat) {
    case "json":
      return jsonProjection();
    case "stream-json":
      return streamJsonProjection({ partial: options.streamPartialOutput });
    default:
      return textProjection();
  }
}

/**
 * Runs one prompt headless and writes the chosen format to stdout. Errors go to stderr as one line.
 * Returns the exit code; the caller exits right after, so nothing can keep the process alive.
 */
export async function runPrint(options: PrintOptions): Promise<number> {
  assertDirectory(options.cwd);
  const controller = new AbortController();
  let signalExit: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalExit !== undefined) process.exit(signalExit); // a second Ctrl-C does not wait
    signalExit = signal === "SIGINT" ? EXIT.sigint : EXIT.sigterm;
    controller.abort(new Error(`Interrupted by ${signal}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const projection = projectionFor(options);
  const writer = new StdoutWriter();
  let end: RunEndEvent | undefined;
  try {
    const events = runAgent({
      prompt: options.prompt,
      cwd: options.cwd,
      signal: controller.signal,
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      permissionMode: options.force ? "bypassPermissions" : "default",
    });
    for await (const event of events) {
      writer.write(projection.project(event));
      if (event.type === "run_end") end = event;
      const blocked = writer.ready();
      if (blocked) await blocked;
    }
  } finally {
    await writer.flush();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  if (signalExit !== undefined) {
    process.stderr.write("cairn: interrupted\n");
    return signalExit;
  }
  if (!end || end.isError) {
    const reason = end?.errors.join("; ") || "the run failed";
    process.stderr.write(`cairn: ${reason}\n`);
    return EXIT.failure;
  }
  return EXIT.success;
}

function assertDirectory(dir: string): void {
  try {
    if (statSync(dir).isDirectory()) return;
  } catch {
    // fall through to the error below
  }
  throw new UsageError(`Workspace ${dir} is not a directory.`);
}
