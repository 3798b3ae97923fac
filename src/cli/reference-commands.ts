import os from "node:os";
import { resolve } from "node:path";
import { loadConfig } from "../config/load.js";
import { ConfigError } from "../providers/types.js";
import { resolveRunModel } from "../run/model.js";
import { UsageError } from "../util/exit-codes.js";
import { HELP } from "./help.js";

/**
 * The reference CLI's subcommands that programs spawning it call before (or instead of) a prompt
 * (README, "CLI reference"): none of them calls a model. A prompt that is literally one of these
 * words goes through `-p`.
 */

export async function runReferenceCommand(
  command: string,
  args: string[],
  version: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const json = formatJson(args);
  switch (command) {
    case "status":
    case "whoami":
      return status(json, env);
    case "about":
      return about(json, version, env);
    case "create-chat":
      return createChat(args, env);
    case "login":
    case "logout":
      process.stderr.write(
        `cairn: cairn has no account to ${command === "login" ? "log in to" : "log out of"}: it uses your model provider's key (ANTHROPIC_API_KEY, OPENAI_API_KEY, …) or a local model; see \`cairn status\` and the README's "Using a real model".\n`,
      );
      return 1;
    case "update":
    case "upgrade":
      process.stdout.write(
        `cairn ${version} is updated with npm: npm install -g cairn@latest (or npm update in a project).\n`,
      );
      return 0;
    case "set-channel":
      process.stderr.write(
        `cairn: cairn has no release channels: npm's dist-tags are its channels (npm install -g cairn@latest, or cairn@<version>).\n`,
      );
      return 1;
    default:
      process.stdout.write(HELP);
      return 0;
  }
}

/** `--format json` (either spelling), the reference's option of `status` and `about`. */
function formatJson(args: readonly string[]): boolean {
  return args.some((arg, i) => arg === "--format=json" || (arg === "--format" && args[i + 1] === "json"));
}

type Configured =
  | { configured: true; model: string; provider: string; apiKeySource: string }
  | { configured: false; reason: string };

/** Which model a run here would use and where its key comes from; nothing is sent anywhere. */
async function configuredModel(env: NodeJS.ProcessEnv): Promise<Configured> {
  try {
    const config = await loadConfig({ cwd: process.cwd(), env });
    const model = await resolveRunModel(config, { env, baseDir: process.cwd() });
    return {
      configured: true,
      model: model.model,
      provider: model.provider.displayName,
      apiKeySource: model.provider.apiKeySource,
    };
  } catch (error) {
    if (error instanceof ConfigError)
      return { configured: false, reason: error.message.replace(/\s*\n\s*(\u2022\s*)?/g, "; ") };
    throw error;
  }
}

async function status(json: boolean, env: NodeJS.ProcessEnv): Promise<number> {
  const found = await configuredModel(env);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({
        status: found.configured ? "authenticated" : "unauthenticated",
        isAuthenticated: found.configured,
        ...(found.configured
          ? { model: found.model, provider: found.provider, apiKeySource: found.apiKeySource }
          : { reason: found.reason }),
      })}\n`,
    );
  } else if (found.configured) {
    // The second line is the reference's wording, which ACP adapters look for to call the CLI usable.
    process.stdout.write(
      `Configured: ${found.model} (${found.provider}; key: ${found.apiKeySource})\nLogged in as ${found.provider} (no account: the provider's key is the login)\n`,
    );
  } else process.stdout.write(`Not configured: ${found.reason}\n`);
  return found.configured ? 0 : 1;
}

async function about(json: boolean, version: string, env: NodeJS.ProcessEnv): Promise<number> {
  const found = await configuredModel(env);
  const info = {
    cliVersion: version,
    model: found.configured ? found.model : null,
    osPlatform: os.platform(),
    osArch: os.arch(),
    nodeVersion: process.version,
    terminalProgram: env.TERM_PROGRAM ?? null,
    shell: env.SHELL ?? null,
  };
  if (json) process.stdout.write(`${JSON.stringify(info)}\n`);
  else
    process.stdout.write(
      `${Object.entries(info)
        .map(([key, value]) => `${key}: ${value ?? "-"}`)
        .join("\n")}\n`,
    );
  return 0;
}

/** `create-chat`: an empty session for this directory; its id is the last line (consumers read that). */
async function createChat(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let cwd = process.cwd();
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--workspace" && args[i + 1] !== undefined) cwd = resolve(args[++i]!);
    else throw new UsageError(`cairn create-chat takes --workspace <dir>, not ${args[i]}`);
  }
  const { defaultTranscriptStore } = await import("../sessions/open-session.js");
  const writer = await defaultTranscriptStore(env).create(cwd);
  await writer.close();
  process.stdout.write(`${writer.sessionId}\n`);
  return 0;
}
