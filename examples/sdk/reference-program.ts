// A program written for the public agent-SDK convention (`@anthropic-ai/claude-agent-sdk`), run on
// cairn by changing only the import line. It touches every message shape a typical consumer reads:
// the system init fields, raw stream deltas, assistant content blocks, tool results and the result
// with its usage and cost, and prints a one-line JSON summary at the end.
//
//   node reference-program.js "Read notes.txt and summarise it"
import { query, type SDKMessage, type SDKResultMessage } from "cairn";

const prompt = process.argv[2] ?? "Read notes.txt and summarise it";

const summary = {
  session: "",
  model: "",
  cwd: "",
  tools: [] as string[],
  permissionMode: "",
  apiKeySource: "",
  mcpServers: -1,
  streamedText: "",
  streamedThinking: "",
  streamedToolInput: "",
  blockStarts: [] as string[],
  streamedOutputTokens: 0,
  assistantBlocks: [] as string[],
  toolCalls: [] as { id: string; name: string; input: string }[],
  toolResults: [] as { id: string; isError: boolean; text: string; structured: boolean }[],
  result: "",
  subtype: "",
  errors: [] as string[],
  turns: 0,
  inputTokens: 0,
  outputTokens: 0,
  cost: "",
  modelCosts: [] as string[],
  denials: 0,
  sameSession: true,
};

function describeResult(message: SDKResultMessage): void {
  summary.subtype = message.subtype;
  if (message.subtype === "success") {
    summary.result = message.result;
  } else {
    summary.errors = message.errors;
  }
  summary.turns = message.num_turns;
  summary.inputTokens = message.usage.input_tokens + message.usage.cache_read_input_tokens;
  summary.outputTokens = message.usage.output_tokens;
  summary.cost = `$${message.total_cost_usd.toFixed(4)}`;
  for (const [model, usage] of Object.entries(message.modelUsage)) {
    summary.modelCosts.push(
      `${model}: ${usage.inputTokens}/${usage.outputTokens} tokens, $${usage.costUSD.toFixed(4)}`,
    );
  }
  summary.denials = message.permission_denials.length;
  if (message.duration_ms < message.duration_api_ms) throw new Error("duration_api_ms > duration_ms");
}

function handle(message: SDKMessage): void {
  if (summary.session && "session_id" in message && message.session_id !== summary.session) {
    summary.sameSession = false;
  }
  switch (message.type) {
    case "system":
      if (message.subtype === "init") {
        summary.session = message.session_id;
        summary.model = message.model;
        summary.cwd = message.cwd;
        summary.tools = message.tools;
        summary.permissionMode = message.permissionMode;
        summary.apiKeySource = message.apiKeySource;
        summary.mcpServers = message.mcp_servers.length;
      }
      break;
    case "stream_event": {
      const event = message.event;
      if (event.type === "content_block_start") {
        summary.blockStarts.push(event.content_block.type);
      } else if (event.type === "content_block_delta") {
        if (event.delta.type === "text_delta") summary.streamedText += event.delta.text;
        else if (event.delta.type === "thinking_delta") summary.streamedThinking += event.delta.thinking;
        else if (event.delta.type === "input_json_delta")
          summary.streamedToolInput += event.delta.partial_json;
      } else if (event.type === "message_delta") {
        summary.streamedOutputTokens += event.usage.output_tokens;
      }
      break;
    }
    case "assistant":
      for (const block of message.message.content) {
        summary.assistantBlocks.push(block.type);
        if (block.type === "tool_use") {
          summary.toolCalls.push({ id: block.id, name: block.name, input: JSON.stringify(block.input) });
        }
      }
      break;
    case "user": {
      const content = message.message.content;
      if (Array.isArray(content)) {
        for (const block of content) {
          if (block.type === "tool_result") {
            const text = typeof block.content === "string" ? block.content : JSON.stringify(block.content);
            summary.toolResults.push({
              id: block.tool_use_id,
              isError: block.is_error === true,
              text,
              structured: typeof message.tool_use_result === "object" && message.tool_use_result !== null,
            });
          }
        }
      }
      break;
    }
    case "result":
      describeResult(message);
      break;
    default:
      // Other message types and system subtypes: ignored, as the convention asks.
      break;
  }
}

for await (const message of query({
  prompt,
  options: {
    cwd: process.cwd(),
    includePartialMessages: true,
    allowedTools: ["Read"],
    maxTurns: 5,
  },
})) {
  handle(message);
}

console.log(JSON.stringify(summary));
