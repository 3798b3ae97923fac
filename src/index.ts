/**
 * `cairn`: the package root.
 *
 * - `query()` and its types: the SDK (docs/sdk.md). Shape-compatible with the public agent-SDK
 *   convention, so a program written for it runs on cairn by changing its import.
 * - `runAgent()` and the `EngineEvent` types: the engine's own event stream, for front ends that
 *   want the raw events rather than SDK messages.
 * - `SessionNotFoundError` (an unknown `resume` id) and `SessionWriteError` (a transcript that cannot
 *   be written, a `sessionId` already in use): what the first `next()` of a query may reject with.
 */

export { ConfigFileError } from "./config/files.js";
export type {
  AssistantBlockEvent,
  EngineEvent,
  ModelCallEndEvent,
  ModelCallStartEvent,
  PermissionDenial,
  RunEndEvent,
  RunStartEvent,
  RunSubtype,
  StreamEvent,
  ToolEndEvent,
  ToolStartEvent,
  TurnEndEvent,
} from "./engine/events.js";
export type {
  AnyZodRawShape,
  CreateSdkMcpServerOptions,
  InferShape,
  McpSdkServerConfigWithInstance,
  SdkMcpToolDefinition,
} from "./mcp/sdk-server.js";
export { createSdkMcpServer, tool } from "./mcp/sdk-server.js";
export { ConfigError, ProviderError } from "./providers/types.js";
export type {
  AgentRunOptions,
  PreparedRun,
} from "./run/agent.js";
export { prepareRun, runAgent } from "./run/agent.js";
export type {
  ApiKeySource,
  ModelUsage,
  NonNullableUsage,
  PermissionMode,
  SDKAPIAssistantMessage,
  SDKAPIRetryMessage,
  SDKAssistantContentBlock,
  SDKAssistantMessage,
  SDKAssistantMessageError,
  SDKCitationsDelta,
  SDKCompactBoundaryMessage,
  SDKHookProgressMessage,
  SDKHookResponseMessage,
  SDKHookStartedMessage,
  SDKInformationalMessage,
  SDKInputJSONDelta,
  SDKMessage,
  SDKPartialAssistantMessage,
  SDKPermissionDenial,
  SDKRawContentBlockDelta,
  SDKRawContentBlockDeltaEvent,
  SDKRawContentBlockStartEvent,
  SDKRawContentBlockStopEvent,
  SDKRawMessageDeltaEvent,
  SDKRawMessageStartEvent,
  SDKRawMessageStopEvent,
  SDKRawMessageStreamEvent,
  SDKRawUsage,
  SDKRedactedThinkingBlock,
  SDKResultError,
  SDKResultMessage,
  SDKResultSuccess,
  SDKSignatureDelta,
  SDKStatusMessage,
  SDKStopReason,
  SDKSystemMessage,
  SDKTaskNotificationMessage,
  SDKTaskProgressMessage,
  SDKTaskStartedMessage,
  SDKTaskUsage,
  SDKTextBlock,
  SDKTextDelta,
  SDKThinkingBlock,
  SDKThinkingDelta,
  SDKToolProgressMessage,
  SDKToolResultBlock,
  SDKToolUseBlock,
  SDKUsage,
  SDKUserContentBlock,
  SDKUserMessage,
  UUID,
} from "./sdk/messages.js";
export type {
  AgentDefinition,
  BaseHookInput,
  CanUseTool,
  EffortLevel,
  EnvOption,
  HookCallback,
  HookCallbackMatcher,
  HookEvent,
  HookInput,
  HookJSONOutput,
  HookPermissionDecision,
  McpHttpServerConfig,
  McpServerConfig,
  McpSSEServerConfig,
  McpStdioServerConfig,
  NotificationHookInput,
  Options,
  OutputFormat,
  PermissionBehavior,
  PermissionDeniedHookInput,
  PermissionRequestHookInput,
  PermissionResult,
  PermissionRuleValue,
  PermissionUpdate,
  PermissionUpdateDestination,
  PostCompactHookInput,
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PreCompactHookInput,
  PreToolUseHookInput,
  SessionEndHookInput,
  SessionStartHookInput,
  SettingSource,
  StopHookInput,
  SubagentStartHookInput,
  SubagentStopHookInput,
  SystemPromptOption,
  ThinkingConfig,
  UserPromptSubmitHookInput,
} from "./sdk/options.js";
export { HOOK_EVENTS, InvalidOptionsError } from "./sdk/options.js";
export type {
  AgentInfo,
  McpServerStatus,
  ModelInfo,
  Query,
  QueryParams,
  SDKControlInterruptResponse,
  SDKControlSetPermissionModeResponse,
  SlashCommand,
} from "./sdk/query.js";
export { query } from "./sdk/query.js";
export { SessionNotFoundError } from "./sessions/store.js";
export { SessionWriteError } from "./sessions/writer.js";
