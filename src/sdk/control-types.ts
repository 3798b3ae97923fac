import type { AgentInfo, ModelInfo, SlashCommand } from "./query.js";

/**
 * Shapes of the convention's `Query` control answers that cairn fills in (docs/sdk.md, "The `Query`
 * object"). Optional fields cairn has no value for are left out.
 */

/** `accountInfo()`: cairn has no account (keys come from the environment); `apiProvider` for Anthropic models. */
export type AccountInfo = {
  email?: string;
  organization?: string;
  subscriptionType?: string;
  tokenSource?: string;
  apiKeySource?: string;
  apiProvider?:
    | "firstParty"
    | "bedrock"
    | "vertex"
    | "foundry"
    | "anthropicAws"
    | "anthropicGoogleCloud"
    | "mantle"
    | "gateway";
};

/** `initializationResult()`: what the convention's CLI answers to `initialize`. */
export type SDKControlInitializeResponse = {
  commands: SlashCommand[];
  agents: AgentInfo[];
  output_style: string;
  available_output_styles: string[];
  models: ModelInfo[];
  account: AccountInfo;
  hooks_applied?: boolean;
  hook_on_failure_supported?: boolean;
  mcp_servers_applied?: boolean;
  claude_code_version?: string;
};

/** `getContextUsage()`: an estimate of the conversation's size against the model's context window. */
export type SDKControlGetContextUsageResponse = {
  categories: { name: string; tokens: number }[];
  totalTokens: number;
  maxTokens: number;
  percentage: number;
  model: string;
};

/** `readFile()`: a file of the workspace (`null` when it cannot be read). */
export type SDKControlReadFileResponse = {
  contents: string;
  absPath: string;
  truncated?: boolean;
  encoding?: "utf-8" | "base64";
};

/** `rewindFiles()` (file checkpoints: src/sessions/checkpoints.ts). */
export type { RewindFilesResult } from "../sessions/checkpoints.js";

export type SDKControlReloadPluginsResponse = { plugins: unknown[]; errors?: unknown[] };
export type SDKControlReloadSkillsResponse = { skills: SlashCommand[] };
