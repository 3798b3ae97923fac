/**
 * `cairn/testing`: script a model for tests. A scenario lists the model's replies and faults, one
 * step per model call; the scripted model server answers real HTTP requests with them.
 * See docs/scenarios.md.
 */

export {
  chunkText,
  DEFAULT_CHUNK_SIZE,
  DEFAULT_SCENARIO_MODEL,
  type ErrorStep,
  estimateTokens,
  type HangStep,
  hang,
  httpError,
  ReplyBuilder,
  type ReplyRenderOptions,
  type ReplyStep,
  renderReplyEvents,
  reply,
  type Scenario,
  type ScenarioBlock,
  type ScenarioStep,
  type StepInput,
  toStep,
} from "../providers/scenario.js";
export { loadScenarioFile, parseScenario } from "../providers/scenario-file.js";
export {
  type RecordedRequest,
  type ScriptedServer,
  type ScriptedServerOptions,
  startScriptedServer,
} from "./server.js";
export type { RecordedMedia } from "./wire.js";
export { assembleMessage } from "./wire-anthropic.js";
