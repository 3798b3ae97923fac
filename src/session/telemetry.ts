import type { LoadedConfig } from "../config/load.js";
import { exportsAnything, telemetrySettings } from "../telemetry/settings.js";
import type { SessionTelemetry } from "../telemetry/start.js";
import { importApart } from "../util/import-apart.js";

/** Lines already said by this process (a warning about the settings is said once, not per session). */
const said = new Set<string>();

function warn(line: string): void {
  const text = `cairn: ${line}`;
  if (said.has(text)) return;
  said.add(text);
  process.stderr.write(`${text}\n`);
}

/**
 * A session's OpenTelemetry export (docs/telemetry.md), when its environment or config asks for
 * one: undefined otherwise, having loaded nothing (the OpenTelemetry packages load apart from the
 * CLI's bundle, only here). What cannot be applied is said once on stderr.
 */
export async function startTelemetry(
  env: NodeJS.ProcessEnv,
  config: LoadedConfig,
): Promise<SessionTelemetry | undefined> {
  const settings = telemetrySettings(env, config.telemetry);
  if (!settings) return undefined;
  for (const line of settings.warnings) warn(line);
  if (!exportsAnything(settings)) return undefined;
  try {
    const { startSessionTelemetry } = await importApart<typeof import("../telemetry/start.js")>(
      new URL("../telemetry/start.js", import.meta.url),
      import.meta.url,
    );
    return await startSessionTelemetry(settings, warn);
  } catch (error) {
    warn(`telemetry is off: ${(error as Error).message}`);
    return undefined;
  }
}

/** Exports what the session's runs left pending, within a bounded wait; one line if it failed. */
export async function flushTelemetry(
  telemetry: Promise<SessionTelemetry | undefined> | undefined,
): Promise<void> {
  const started = await telemetry;
  if (!started) return;
  const failure = await started.flush();
  if (failure) warn(`telemetry export failed: ${failure}`);
}
