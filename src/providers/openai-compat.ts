/**
 * OpenAI Chat Completions servers cairn knows, and how each one differs. Every per-server quirk
 * lives in this one table; the Chat provider reads nothing else. To add a server, add a row.
 *
 * `openai-compatible/<model>` is the generic row: any server that speaks Chat Completions, at the
 * base URL you give it.
 */
export type CompatServer = "openai-compatible" | "ollama" | "lmstudio" | "vllm" | "llamacpp";

export type CompatQuirks = {
  name: CompatServer;
  /** Shown in messages and `cairn models`. */
  label: string;
  /** Base URL when none is configured (local servers' defaults); undefined: one must be given. */
  defaultBaseURL?: string;
  /** Environment variable that sets the base URL (the `baseURL` setting / `--base-url` wins). */
  baseURLEnv: string;
  /** Environment variable holding the key (the `apiKey` setting / `--api-key` wins). */
  apiKeyEnv: string;
  /** Whether the server refuses requests without a key. Local servers accept any key or none. */
  requiresKey: boolean;
  /** Whether `stream_options: { include_usage: true }` is accepted (a final usage chunk is sent). */
  streamUsage: boolean;
  /** The request field for the output limit. */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** `delta` fields that carry reasoning text (streamed as thinking), in the order tried. */
  reasoningFields: readonly string[];
  /** One line for the docs table. */
  notes: string;
};

/**
 * Reasoning fields: DeepSeek-style servers (llama.cpp `--reasoning-format deepseek`, LM Studio,
 * older vLLM) send `reasoning_content`; Ollama and newer vLLM send `reasoning`. Both are read
 * everywhere — a server sends one or the other — so a server update never loses thinking text.
 */
const REASONING_FIELDS = ["reasoning_content", "reasoning"] as const;

export const COMPAT_SERVERS: Readonly<Record<CompatServer, CompatQuirks>> = {
  "openai-compatible": {
    name: "openai-compatible",
    label: "OpenAI-compatible server",
    baseURLEnv: "OPENAI_COMPATIBLE_BASE_URL",
    apiKeyEnv: "OPENAI_COMPATIBLE_API_KEY",
    requiresKey: false,
    streamUsage: true,
    maxTokensField: "max_tokens",
    reasoningFields: REASONING_FIELDS,
    notes: "Any Chat Completions server; base URL required; key sent when given.",
  },
  ollama: {
    name: "ollama",
    label: "Ollama",
    defaultBaseURL: "http://127.0.0.1:11434/v1",
    baseURLEnv: "OLLAMA_BASE_URL",
    apiKeyEnv: "OLLAMA_API_KEY",
    requiresKey: false,
    streamUsage: true,
    maxTokensField: "max_tokens",
    reasoningFields: REASONING_FIELDS,
    notes: "Thinking in `reasoning`; default context is small — raise OLLAMA_CONTEXT_LENGTH for agent work.",
  },
  lmstudio: {
    name: "lmstudio",
    label: "LM Studio",
    defaultBaseURL: "http://127.0.0.1:1234/v1",
    baseURLEnv: "LMSTUDIO_BASE_URL",
    apiKeyEnv: "LMSTUDIO_API_KEY",
    requiresKey: false,
    streamUsage: true,
    maxTokensField: "max_tokens",
    reasoningFields: REASONING_FIELDS,
    notes: "Thinking in `reasoning_content` when the server separates reasoning.",
  },
  vllm: {
    name: "vllm",
    label: "vLLM",
    defaultBaseURL: "http://127.0.0.1:8000/v1",
    baseURLEnv: "VLLM_BASE_URL",
    apiKeyEnv: "VLLM_API_KEY",
    requiresKey: false,
    streamUsage: true,
    maxTokensField: "max_tokens",
    reasoningFields: REASONING_FIELDS,
    notes:
      "Key only when started with --api-key; tool calls need --enable-auto-tool-choice and a --tool-call-parser.",
  },
  llamacpp: {
    name: "llamacpp",
    label: "llama.cpp server",
    defaultBaseURL: "http://127.0.0.1:8080/v1",
    baseURLEnv: "LLAMACPP_BASE_URL",
    apiKeyEnv: "LLAMACPP_API_KEY",
    requiresKey: false,
    streamUsage: true,
    maxTokensField: "max_tokens",
    reasoningFields: REASONING_FIELDS,
    notes:
      "Start llama-server with --jinja for tool calls; thinking in `reasoning_content`; tool-call ids may be absent.",
  },
};

export const COMPAT_SERVER_NAMES = Object.keys(COMPAT_SERVERS) as CompatServer[];

export function isCompatServer(name: string): name is CompatServer {
  return Object.hasOwn(COMPAT_SERVERS, name);
}
