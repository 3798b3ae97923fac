import * as z from "zod";
import { PERMISSION_MODES } from "../permissions/types.js";
import { once } from "../util/once.js";
import { claudeHooksSchema } from "./hooks.js";

/**
 * cairn's own config file (`~/.cairn/config.json`, `<workspace>/.cairn/config.json`), every key of it.
 * docs/config.md documents each one; test/config/docs.test.ts keeps the two in step.
 */
const ruleList = () => z.array(z.string(), { error: "must be an array of strings" });

// Built when a config file is read, not at start-up (docs/performance.md).
const permissionsSchema = () =>
  z.object(
    {
      allow: ruleList().optional(),
      deny: ruleList().optional(),
      ask: ruleList().optional(),
      defaultMode: z
        .enum(PERMISSION_MODES as [string, ...string[]], {
          error: `must be one of ${PERMISSION_MODES.join(", ")}`,
        })
        .optional(),
      additionalDirectories: z.array(z.string(), { error: "must be an array of strings" }).optional(),
    },
    { error: "must be an object" },
  );

/** The sandbox's network policy (docs/security.md, "Network policy"); patterns are checked when applied. */
const telemetrySchema = () =>
  z.object(
    {
      enabled: z.boolean({ error: "must be true or false" }).optional(),
      endpoint: z.url({ error: "must be a URL" }).optional(),
      protocol: z
        .enum(["http/protobuf", "http/json", "grpc"], { error: "must be http/protobuf, http/json or grpc" })
        .optional(),
      headers: z.record(z.string(), z.string(), { error: "must be an object of strings" }).optional(),
      logUserPrompts: z.boolean({ error: "must be true or false" }).optional(),
      logToolDetails: z.boolean({ error: "must be true or false" }).optional(),
    },
    { error: "must be an object" },
  );

const sandboxSchema = () =>
  z.object(
    {
      network: z
        .object(
          { allowedDomains: ruleList().optional(), deniedDomains: ruleList().optional() },
          { error: "must be an object" },
        )
        .optional(),
    },
    { error: "must be an object" },
  );

export const cairnConfigSchema = once(() =>
  z.object({
    /** Editors' JSON-schema pointer: allowed, means nothing to cairn. */
    $schema: z.string().optional(),
    model: z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }).optional(),
    permissions: permissionsSchema().optional(),
    /** MCP servers for every run of this user (`{name: {command, args, env} | {type, url, headers}}`, docs/mcp.md). */
    mcpServers: z
      .record(z.string(), z.unknown(), { error: "must be an object of server configurations" })
      .optional(),
    /** Project MCP servers this user approved: workspace directory → server names. */
    mcpApprovals: z
      .record(z.string(), z.array(z.string()), {
        error: "must map project directories to arrays of server names",
      })
      .optional(),
    /** Command hooks, in Claude's settings format (docs/hooks.md). */
    hooks: claudeHooksSchema().optional(),
    /** Workspaces whose own hooks may run (each directory and everything below it). */
    trustedWorkspaces: z.array(z.string(), { error: "must be an array of paths" }).optional(),
    contextWindow: z
      .number({ error: "must be a number" })
      .int({ error: "must be a whole number of tokens" })
      .min(1024, { error: "must be at least 1024 tokens" })
      .optional(),
    compactThreshold: z
      .number({ error: "must be a number" })
      .min(0, { error: "must be between 0 and 1" })
      .max(1, { error: "must be between 0 and 1" })
      .optional(),
    /** Hosts sandboxed commands may reach, and hosts they may not (docs/security.md, "Network policy"). */
    sandbox: sandboxSchema().optional(),
    /** The proxy for every outbound request, or `off`; overrides HTTPS_PROXY / HTTP_PROXY (docs/config.md). */
    proxy: z.string({ error: "must be a URL or off" }).min(1, { error: "must not be empty" }).optional(),
    /** Hosts reached without the proxy, as NO_PROXY writes them; overrides NO_PROXY. */
    noProxy: z.string({ error: "must be a string" }).optional(),
    /** A SearXNG instance for the WebSearch tool when the provider has no search of its own (docs/tools.md). */
    searxngUrl: z.string({ error: "must be a URL" }).min(1, { error: "must not be empty" }).optional(),
    /** Which search the WebSearch tool uses: the provider's own, SearXNG, or none (docs/tools.md). */
    webSearch: z
      .enum(["provider", "searxng", "off"], { error: 'must be "provider", "searxng" or "off"' })
      .optional(),
    /** OpenTelemetry export (docs/telemetry.md); the standard OTEL_* variables override it. */
    telemetry: telemetrySchema().optional(),
  }),
);

export type CairnConfigFile = z.infer<ReturnType<typeof cairnConfigSchema>>;

/**
 * Every key a cairn config file may hold, dotted (`permissions.allow`); written out so that no
 * schema is built to list them (test/config/schema-keys.test.ts checks them against the schema).
 */
export const CAIRN_CONFIG_KEYS: readonly string[] = [
  "$schema",
  "model",
  "mcpServers",
  "mcpApprovals",
  "hooks",
  "trustedWorkspaces",
  "contextWindow",
  "compactThreshold",
  "proxy",
  "noProxy",
  "searxngUrl",
  "webSearch",
  "telemetry.enabled",
  "telemetry.endpoint",
  "telemetry.protocol",
  "telemetry.headers",
  "telemetry.logUserPrompts",
  "telemetry.logToolDetails",
  "permissions.allow",
  "permissions.deny",
  "permissions.ask",
  "permissions.defaultMode",
  "permissions.additionalDirectories",
  "sandbox.network.allowedDomains",
  "sandbox.network.deniedDomains",
];

/** What a project file may set: only what restricts. */
export const PROJECT_CONFIG_KEYS: readonly string[] = [
  "$schema",
  "permissions.deny",
  "permissions.ask",
  "sandbox.network.deniedDomains",
];
