import { UsageError } from "./exit-codes.js";

/**
 * `cairn models [--json]`: the known models (names, context, prices) and how each provider is
 * configured from the environment. Contacts no server and never prints a key. The provider error
 * messages point users here.
 */
export async function runModels(args: string[]): Promise<number> {
  const json = args.includes("--json");
  const unknown = args.filter((arg) => arg !== "--json");
  if (unknown.length > 0) throw new UsageError(`cairn models takes only --json, not ${unknown.join(" ")}`);
  const { listModels, listModelsText } = await import("../providers/models-text.js");
  const text = json ? `${JSON.stringify(listModels(process.env))}\n` : listModelsText(process.env);
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  return 0;
}
