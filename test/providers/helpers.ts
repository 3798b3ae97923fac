import { AnthropicProvider } from "../../src/providers/anthropic.js";
import { OpenAIResponsesProvider } from "../../src/providers/openai-responses.js";
import { resolveModel } from "../../src/providers/registry.js";
import type { ModelProvider } from "../../src/providers/types.js";

/** One provider per wire, each talking to the scripted server through its real client over HTTP. */
export type WireCase = {
  name: string;
  /** The model name a user would type (what cost and events report). */
  model: string;
  providerModel: string;
  make(url: string): Promise<ModelProvider>;
};

export const WIRE_CASES: WireCase[] = [
  {
    name: "Anthropic Messages",
    model: "anthropic/claude-sonnet-5-5",
    providerModel: "claude-sonnet-5-5",
    make: async (url) =>
      new AnthropicProvider({
        model: "claude-sonnet-5-5",
        displayName: "Claude Sonnet 5.5",
        apiKey: "test-key",
        apiKeySource: "env",
        baseURL: url,
      }),
  },
  {
    name: "OpenAI Responses",
    model: "openai/gpt-5.6-terra",
    providerModel: "gpt-5.6-terra",
    make: async (url) =>
      new OpenAIResponsesProvider({
        displayName: "GPT-5.6 Terra",
        apiKey: "test-key",
        apiKeySource: "env",
        baseURL: `${url}/v1`,
        reasoningSummaries: true,
      }),
  },
  {
    name: "OpenAI Chat (ollama preset)",
    model: "ollama/qwen3",
    providerModel: "qwen3",
    // Through the registry, as a user's --model ollama/qwen3 with OLLAMA_BASE_URL pointing here.
    make: async (url) =>
      (await resolveModel({ model: "ollama/qwen3", env: { OLLAMA_BASE_URL: `${url}/v1` } })).provider,
  },
];
