import { UsageError } from "../util/exit-codes.js";

/**
 * `cairn models` (and `--list-models`): one `<id> - <display name>` line per model, as the reference
 * CLI prints them, each id accepted by `--model` as it is. `--prices`: the catalog with context
 * windows and prices, the aliases and how each provider is configured; `--json`: the same as data.
 * Contacts no server and never prints a key. The provider error messages point users here.
 */
export async function runModels(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const json = args.includes("--json");
  const prices = args.includes("--prices");
  const unknown = args.filter((arg) => arg !== "--json" && arg !== "--prices");
  if (unknown.length > 0)
    throw new UsageError(`cairn models takes --prices or --json, not ${unknown.join(" ")}`);
  const { listModels, listModelsText, modelLinesText } = await import("../providers/models-text.js");
  let text: string;
  if (json) text = `${JSON.stringify(listModels(env))}\n`;
  else if (prices) text = listModelsText(env);
  else text = modelLinesText(env, await configModel(env));
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  return 0;
}

/** The user config's `model`, which a run uses unless CAIRN_MODEL is set (src/run/model.ts). */
async function configModel(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.CAIRN_MODEL?.trim()) return undefined;
  const { loadConfig } = await import("../config/load.js");
  return (await loadConfig({ cwd: process.cwd(), env })).model;
}
