import { parseMcpConfigFlags } from "../mcp/sources.js";
import { configuredSandboxDomains } from "../run/sandbox-domains.js";
import { resolveSandboxPolicy } from "../sandbox/policy.js";
import type { SessionSetup } from "../session/session.js";
import type { TranscriptStore } from "../sessions/transcript-store.js";
import type { CliOptions } from "./args.js";
import { writeError } from "./errors.js";

/**
 * The session the CLI's flags describe, for both of its modes: print mode (`answered: false`, it
 * cannot ask, so reads and edits inside the workspace are allowed and the rest needs a rule) and
 * the interactive mode (`answered: true`: what the rules and the mode leave open is asked).
 * `store`: where sessions are kept when not in `$CAIRN_HOME` (`--database-url`).
 */
export function cliSessionSetup(
  options: CliOptions & { cwd: string; env: NodeJS.ProcessEnv },
  { answered, store }: { answered: boolean; store?: TranscriptStore },
): SessionSetup {
  const { cwd, env } = options;
  return {
    cwd,
    env,
    ...(store ? { store } : {}),
    ...(options.settingSources ? { settingSources: options.settingSources } : {}),
    assembly: () => ({
      cwd,
      env,
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.baseUrl !== undefined ? { baseURL: options.baseUrl } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      hooks: {
        trust: options.trust,
        trustHint: "pass --trust, or add the workspace to trustedWorkspaces in the user config",
      },
      sandbox: async (roots, env, config) => {
        const configured = configuredSandboxDomains(config);
        const { policy, warning } = await resolveSandboxPolicy(
          {
            ...(options.sandbox ? { mode: options.sandbox } : {}),
            network: options.sandboxNetwork,
            allowedDomains: [...options.sandboxAllowDomains, ...configured.allowed],
            deniedDomains: configured.denied,
          },
          { roots, env },
        );
        return { policy, warnings: warning ? [warning] : [] };
      },
      mcp: {
        explicit: parseMcpConfigFlags(options.mcpConfigs, cwd),
        strict: options.strictMcpConfig,
        approveProject: options.approveMcps,
        // A server's own stderr is its log: shown with CAIRN_DEBUG=1; what happens to it, always.
        onLog: (server, line, kind) => {
          if (kind === "event" || env.CAIRN_DEBUG) writeError(`MCP server ${server}: ${line}`);
        },
      },
      ...options.longSession,
    }),
    permissions: {
      // Print mode cannot ask: reads and edits inside the workspace are allowed, the rest needs a
      // rule; the reference CLI calls that print-mode default "default". The interactive mode asks.
      ...(answered ? {} : { fallbackMode: "acceptEdits" as const, fallbackReportedAs: "default" }),
      ...(options.force ? { mode: "bypassPermissions" as const } : {}),
      ...(options.permissionMode && !options.force ? { mode: options.permissionMode } : {}),
      allowedTools: options.allowedTools,
      disallowedTools: options.disallowedTools,
      additionalDirectories: options.addDirs,
      answered,
      forceHint: "use --force",
      source: "--allowedTools/--disallowedTools",
    },
    opening: {
      ...(options.newSessionId !== undefined ? { sessionId: options.newSessionId } : {}),
      // The reference's habit (an unknown id starts a session under it) is kept for local files; a
      // database shared with cairn serve gets no session from a mistyped id: it is an error there.
      ...(typeof options.resume === "string" ? { resume: options.resume, createMissing: !store } : {}),
      continueLatest: options.continueLatest,
      fork: options.forkSession,
    },
  };
}
