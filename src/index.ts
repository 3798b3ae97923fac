/**
 * `cairn`: the package root.
 *
 * - `query()` and its types: the SDK (docs/sdk.md). Shape-compatible with the public agent-SDK
 *   convention, so a program written for it runs on cairn by changing its import.
 * - `runAgent()` and the `EngineEvent` types: the engine's own event stream, for front ends that
 *   want the raw events rather than SDK messages.
 * - `SessionNotFoundError` (an unknown `resume` id), `SessionLockedError` (a session another process
 *   writes, or whose `cairn serve` agent has a run under way) and `SessionWriteError` (a transcript
 *   that cannot be written, a `sessionId` already in use): what the first `next()` of a query may
 *   reject with.
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
export type { ReportOptions, ReportSource } from "./report/lazy.js";
export type {
  AgentRunOptions,
  PreparedRun,
} from "./run/agent.js";
export { prepareRun, runAgent } from "./run/agent.js";
export type { ExitReason } from "./sdk/constants.js";
export {
  AbortError,
  BUILTIN_TOOL_NAMES,
  EXIT_REASONS,
  LEGACY_TOOL_NAME_ALIASES,
  ORG_POLICY_LIMIT_PREFIXES,
  SYSTEM_PROMPT_DYNAMIC_BOUNDARY,
  USAGE_LIMIT_ERROR_PREFIXES,
  USAGE_TRANSITION_PREFIXES,
  USAGE_WARNING_PREFIXES,
} from "./sdk/constants.js";
export type * from "./sdk/control-types.js";
export type * from "./sdk/convention-types.js";
export type * from "./sdk/hook-outputs.js";
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
  SDKDocumentBlock,
  SDKHookProgressMessage,
  SDKHookResponseMessage,
  SDKHookStartedMessage,
  SDKImageBlock,
  SDKInformationalMessage,
  SDKInputJSONDelta,
  SDKMediaSource,
  SDKMessage,
  SDKPartialAssistantMessage,
  SDKPermissionDenial,
  SDKRateLimitEvent,
  SDKRateLimitInfo,
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
  SDKUserMessageReplay,
  UUID,
} from "./sdk/messages.js";
export type {
  AgentDefinition,
  BaseHookInput,
  CanUseTool,
  ConfigChangeHookInput,
  CwdChangedHookInput,
  DirectoryAddedHookInput,
  EffortLevel,
  ElicitationHookInput,
  ElicitationResultHookInput,
  EnvOption,
  FileChangedHookInput,
  HookCallback,
  HookCallbackMatcher,
  HookEvent,
  HookInput,
  HookJSONOutput,
  HookPermissionDecision,
  InstructionsLoadedHookInput,
  McpHttpServerConfig,
  McpServerConfig,
  McpSSEServerConfig,
  McpStdioServerConfig,
  MessageDisplayHookInput,
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
  PostModelSwitchHookInput,
  PostToolBatchHookInput,
  PostToolBatchToolCall,
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PreCompactHookInput,
  PreModelSwitchHookInput,
  PreSkillShellCommandHookInput,
  PreToolUseHookInput,
  SessionEndHookInput,
  SessionStartHookInput,
  SettingSource,
  SetupHookInput,
  StopFailureHookInput,
  StopHookInput,
  SubagentStartHookInput,
  SubagentStopHookInput,
  SystemPromptOption,
  TaskCompletedHookInput,
  TaskCreatedHookInput,
  TeammateIdleHookInput,
  ThinkingConfig,
  UserPromptExpansionHookInput,
  UserPromptSubmitHookInput,
  WorktreeCreateHookInput,
  WorktreeRemoveHookInput,
} from "./sdk/options.js";
export { HOOK_EVENTS, InvalidOptionsError } from "./sdk/options.js";
export type {
  AgentInfo,
  McpServerStatus,
  McpSetServersResult,
  ModelInfo,
  Query,
  QueryParams,
  SDKControlInterruptResponse,
  SDKControlSetPermissionModeResponse,
  SlashCommand,
} from "./sdk/query.js";
export { query } from "./sdk/query.js";
export { renderReport } from "./sdk/report.js";
export type { ImportSessionToStoreOptions } from "./sdk/session-store.js";
export { foldSessionSummary, InMemorySessionStore, importSessionToStore } from "./sdk/session-store.js";
export type {
  ForkSessionOptions,
  ForkSessionResult,
  GetSessionInfoOptions,
  GetSessionMessagesOptions,
  GetSubagentMessagesOptions,
  ListSessionsOptions,
  ListSubagentsOptions,
  SDKSessionInfo,
  SessionMessage,
  SessionMutationOptions,
} from "./sdk/sessions.js";
export {
  archiveSession,
  deleteSession,
  forkSession,
  getSessionInfo,
  getSessionMessages,
  getSubagentMessages,
  listSessions,
  listSubagents,
  renameSession,
  tagSession,
  unarchiveSession,
} from "./sdk/sessions.js";
export { filterEscalatingDefaultMode, matchDeniedModels, resolveSettings } from "./sdk/settings.js";
export type * from "./sdk/settings-types.js";
export type * from "./sdk/unemitted-messages.js";
export type { ClaimOptions, SpareProcess, StartupParams, WarmQuery } from "./sdk/warm.js";
export { prewarm, startup } from "./sdk/warm.js";
export { SessionLockedError } from "./sessions/lock.js";
export { SessionNotFoundError } from "./sessions/store.js";
export { SessionWriteError } from "./sessions/writer.js";
