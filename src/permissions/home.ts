import os from "node:os";
import path from "node:path";

/** `$CAIRN_HOME`, or `~/.cairn`: user config and transcripts live here. A leading `~` is expanded. */
export function resolveCairnHome(env: NodeJS.ProcessEnv, home: string = os.homedir()): string {
  const configured = env.CAIRN_HOME;
  if (configured && configured.trim() !== "") {
    const expanded =
      configured === "~"
        ? home
        : configured.startsWith("~/")
          ? path.join(home, configured.slice(2))
          : configured;
    return path.resolve(expanded);
  }
  return path.join(home, ".cairn");
}
