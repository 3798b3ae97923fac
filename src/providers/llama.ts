import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import { basename, resolve } from "node:path";
import type { ModelStreamEvent, StopReason, StreamedMessage, Usage } from "../engine/messages.js";
import { open } from "../util/fs-async.js";
import { importPackage } from "../util/import-package.js";
import { reportLibraryWarning } from "./library-warnings.js";
import { type LlamaChatHistoryItem, toLlamaHistory } from "./llama-history.js";
import { dropNullMembers, ToolInputStream, toGrammarSchema } from "./llama-json.js";
import {
  ConfigError,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
  type ToolSpec,
} from "./types.js";

/** The node-llama-cpp version cairn is built and tested against (an optional dependency). */
export const NODE_LLAMA_CPP_VERSION = "3.21.1";
const DEFAULT_MAX_CONTEXT = 8192;

export type LlamaProviderOptions = {
  /** Path of a `.gguf` model file. */
  modelPath: string;
  /** Name for `system/init.model`; default: the model's `general.name` (or file name) + " (local)". */
  displayName?: string;
  /** Context window in tokens; default: the model's training context, at most 8192. */
  contextSize?: number;
  /** CPU threads for inference; default: the machine's available cores. */
  threads?: number;
  /** Sampling temperature; default 0 (greedy: the same prompt gives the same reply). */
  temperature?: number;
};

/**
 * Provider options from the environment: `CAIRN_LOCAL_CONTEXT_SIZE`, `CAIRN_LOCAL_THREADS`
 * (positive integers) and `CAIRN_LOCAL_TEMPERATURE` (a number ≥ 0). Unset variables are left out;
 * invalid ones are a ConfigError.
 */
export function llamaOptionsFromEnv(
  env: NodeJS.ProcessEnv,
): Pick<LlamaProviderOptions, "contextSize" | "threads" | "temperature"> {
  const read = (name: string, integer: boolean): number | undefined => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === "") return undefined;
    const value = Number(raw);
    const valid = integer ? Number.isInteger(value) && value > 0 : Number.isFinite(value) && value >= 0;
    if (!valid) {
      throw new ConfigError(
        `${name} must be ${integer ? "a positive integer" : "a number >= 0"}, got "${raw}".`,
      );
    }
    return value;
  };
  const contextSize = read("CAIRN_LOCAL_CONTEXT_SIZE", true);
  const threads = read("CAIRN_LOCAL_THREADS", true);
  const temperature = read("CAIRN_LOCAL_TEMPERATURE", false);
  return {
    ...(contextSize !== undefined ? { contextSize } : {}),
    ...(threads !== undefined ? { threads } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
  };
}

/** Test seam: how node-llama-cpp is imported. */
export type LlamaRuntimeOptions = { importModule?: () => Promise<unknown> };

/**
 * The `local:<path/to/model.gguf>` provider: in-process inference through node-llama-cpp. The
 * conversation is rendered with the model's own chat template, and tool calls are generated under
 * node-llama-cpp's grammar for the template's function-calling syntax, so their JSON is always
 * valid. Throws a ConfigError when node-llama-cpp is missing or the file is missing or unusable.
 * The model is loaded once per process per path; node-llama-cpp is imported only here.
 */
export async function createLlamaProvider(
  options: LlamaProviderOptions,
  runtime: LlamaRuntimeOptions = {},
): Promise<ModelProvider> {
  const modelPath = resolve(options.modelPath);
  await checkGgufFile(modelPath);
  const lib = await importNodeLlamaCpp(runtime.importModule);
  const model = await loadModel(lib, modelPath);
  const name = model.fileInfo?.metadata?.general?.name?.trim() || basename(modelPath);
  return new LlamaProvider(lib, model, {
    modelPath,
    displayName: options.displayName ?? `${name} (local)`,
    contextSize:
      options.contextSize ?? Math.min(model.trainContextSize ?? DEFAULT_MAX_CONTEXT, DEFAULT_MAX_CONTEXT),
    threads: options.threads ?? availableParallelism(),
    temperature: options.temperature ?? 0,
  });
}

/** Frees every model, context and the llama.cpp backend loaded by this module (tests, SDK hosts). */
export async function unloadLlamaModels(): Promise<void> {
  const loaded = [...sessions.values(), ...models.values()];
  sessions.clear();
  models.clear();
  for (const entry of loaded) {
    const value = await entry.catch(() => undefined);
    await value?.dispose().catch(() => undefined);
  }
  const backend = await llamaInstance?.catch(() => undefined);
  llamaInstance = undefined;
  await backend?.dispose().catch(() => undefined);
}

// --- The slice of node-llama-cpp's API used here (kept structural: the package is optional). ---

type Token = number;
type LlamaText = { tokenize(tokenizer: unknown): Token[] };
type ChatWrapper = {
  generateContextState(options: {
    chatHistory: LlamaChatHistoryItem[];
    availableFunctions?: Record<string, unknown>;
    documentFunctionParams?: boolean;
  }): { contextText: LlamaText };
};
type ResponseChunk = {
  type: undefined | "segment";
  segmentType?: string;
  text: string;
  segmentEndTime?: Date;
};
type ParamsChunk = { callIndex: number; functionName: string; paramsChunk: string; done: boolean };
type GenerateOptions = {
  signal: AbortSignal;
  stopOnAbortSignal: false;
  maxTokens: number;
  temperature: number;
  functions?: Record<string, { description?: string; params?: unknown }>;
  documentFunctionParams?: boolean;
  onResponseChunk(chunk: ResponseChunk): void;
  onFunctionCallParamsChunk?(chunk: ParamsChunk): void;
  onFunctionCall?(call: { functionName: string; params: unknown }): void;
};
type ChatResponse = {
  functionCalls?: { functionName: string; params: unknown }[];
  metadata: { stopReason: string };
};
type LlamaChat = {
  readonly chatWrapper: ChatWrapper;
  generateResponse(history: LlamaChatHistoryItem[], options: GenerateOptions): Promise<ChatResponse>;
  dispose(): void;
};
type Sequence = {
  readonly contextTokens: Token[];
  readonly tokenMeter: { readonly usedInputTokens: number; readonly usedOutputTokens: number };
};
type Context = { getSequence(): Sequence; dispose(): Promise<void> };
type Model = {
  readonly fileInfo?: { metadata?: { general?: { name?: string } } };
  readonly trainContextSize?: number;
  readonly tokenizer: unknown;
  createContext(options: { contextSize: number; threads: number; sequences: number }): Promise<Context>;
  dispose(): Promise<void>;
};
type Llama = {
  loadModel(options: { modelPath: string }): Promise<Model>;
  dispose(): Promise<void>;
};
type NodeLlamaCpp = {
  getLlama(options: Record<string, unknown>): Promise<Llama>;
  LlamaChat: new (options: { contextSequence: Sequence; autoDisposeSequence?: boolean }) => LlamaChat;
};

// --- Loading, once per process. ---

let llamaInstance: Promise<Llama> | undefined;
const models = new Map<string, Promise<Model>>();
/** One context, sequence and chat per (model, context size, threads), shared by all providers. */
const sessions = new Map<string, Promise<Session>>();

async function checkGgufFile(path: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, "r");
    const stats = await handle.stat();
    if (stats.isDirectory()) throw new ConfigError(`Local model ${path} is a directory, not a .gguf file.`);
    if (!stats.isFile()) throw new ConfigError(`Local model ${path} is not a regular file.`);
    const magic = Buffer.alloc(4);
    const { bytesRead } = await handle.read(magic, 0, 4, 0);
    if (bytesRead < 4 || magic.toString("latin1") !== "GGUF") {
      throw new ConfigError(`Local model ${path} is not a GGUF file (it does not start with "GGUF").`);
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ConfigError(`Local model file not found: ${path}`);
    if (code === "EISDIR") throw new ConfigError(`Local model ${path} is a directory, not a .gguf file.`);
    throw new ConfigError(`Cannot read local model ${path}: ${(error as Error).message}`);
  } finally {
    await handle?.close();
  }
}

async function importNodeLlamaCpp(importModule?: () => Promise<unknown>): Promise<NodeLlamaCpp> {
  try {
    // Through importPackage: an import() inside the CLI's code-cached bundle fails on Node 20, and
    // the optional package is neither type-checked nor bundled from here.
    const lib = (await (importModule ?? (() => importPackage("node-llama-cpp")))()) as Partial<NodeLlamaCpp>;
    if (typeof lib.getLlama !== "function" || typeof lib.LlamaChat !== "function") {
      throw new Error("the module does not export getLlama and LlamaChat");
    }
    return lib as NodeLlamaCpp;
  } catch (error) {
    throw new ConfigError(
      `Local GGUF models need the optional dependency node-llama-cpp@${NODE_LLAMA_CPP_VERSION}, which is not installed or failed to load (${(error as Error).message}). Install it with: npm install node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`,
    );
  }
}

function getLlama(lib: NodeLlamaCpp): Promise<Llama> {
  llamaInstance ??= lib
    .getLlama({
      // Prebuilt binaries only (shipped as npm packages): never download or compile llama.cpp.
      build: "never",
      skipDownload: true,
      usePrebuiltBinaries: true,
      progressLogs: false,
      maxThreads: availableParallelism(),
      logLevel: "error",
      logger: (level: string, message: string) => {
        if (level === "error" || level === "fatal") reportLibraryWarning("llama.cpp", message);
      },
    })
    .catch((error: Error) => {
      llamaInstance = undefined;
      throw new ConfigError(
        `node-llama-cpp has no working prebuilt llama.cpp binary for this machine (${process.platform}-${process.arch}): ${error.message}. cairn never builds llama.cpp from source.`,
      );
    });
  return llamaInstance;
}

async function loadModel(lib: NodeLlamaCpp, modelPath: string): Promise<Model> {
  let loading = models.get(modelPath);
  if (!loading) {
    loading = getLlama(lib).then((llama) =>
      llama.loadModel({ modelPath }).catch((error: Error) => {
        throw new ConfigError(`Cannot load local model ${modelPath}: ${error.message}`);
      }),
    );
    models.set(modelPath, loading);
    loading.catch(() => models.delete(modelPath));
  }
  return loading;
}

type SessionSettings = {
  modelPath: string;
  displayName: string;
  contextSize: number;
  threads: number;
  temperature: number;
};

/** A model's context with one sequence and the chat on it; calls take turns on it. */
class Session {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly model: Model,
    readonly context: Context,
    readonly sequence: Sequence,
    readonly chat: LlamaChat,
  ) {}

  /** Waits for the previous call to finish (or the signal to abort); returns the release function. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    let release!: () => void;
    const previous = this.queue;
    this.queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await abortable(previous, signal);
    } catch (error) {
      previous.then(release);
      throw error;
    }
    return release;
  }

  async dispose(): Promise<void> {
    this.chat.dispose();
    await this.context.dispose();
  }
}

function getSession(lib: NodeLlamaCpp, model: Model, settings: SessionSettings): Promise<Session> {
  const key = `${settings.modelPath}\u0000${settings.contextSize}\u0000${settings.threads}`;
  let session = sessions.get(key);
  if (!session) {
    session = (async () => {
      const context = await model.createContext({
        contextSize: settings.contextSize,
        threads: settings.threads,
        sequences: 1,
      });
      const sequence = context.getSequence();
      // Resolves the chat wrapper from the model's chat template once (it can take a second).
      const chat = new lib.LlamaChat({ contextSequence: sequence, autoDisposeSequence: false });
      return new Session(model, context, sequence, chat);
    })();
    sessions.set(key, session);
    session.catch(() => sessions.delete(key));
  }
  return session;
}

// --- The provider. ---

class LlamaProvider implements ModelProvider {
  readonly wire = "llama" as const;
  readonly apiKeySource = "none" as const;
  /** node-llama-cpp runs text models: a prompt with an image or PDF is refused before it is sent. */
  readonly mediaInput = { image: false, pdf: false };
  readonly displayName: string;
  readonly contextWindow: number;
  private calls = 0;

  constructor(
    private readonly lib: NodeLlamaCpp,
    private readonly model: Model,
    private readonly settings: SessionSettings,
  ) {
    this.displayName = settings.displayName;
    this.contextWindow = settings.contextSize;
  }

  async stream(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    if (signal.aborted) throw abortError(signal);
    const messageId = `msg_local_${++this.calls}_${randomBytes(4).toString("hex")}`;
    return { events: this.generate(request, signal, messageId) };
  }

  private async *generate(
    request: ModelRequest,
    signal: AbortSignal,
    messageId: string,
  ): AsyncGenerator<ModelStreamEvent> {
    let session: Session;
    try {
      session = await abortable(getSession(this.lib, this.model, this.settings), signal);
    } catch (error) {
      throw signal.aborted ? abortError(signal) : localError("could not create a context", error);
    }
    const release = await session.acquire(signal).catch(() => {
      throw abortError(signal);
    });
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    const queue = new EventQueue<ModelStreamEvent>();
    let generation: Promise<void> = Promise.resolve();
    try {
      const history = toLlamaHistory(request);
      const functions = toFunctions(request.tools);
      const prompt = countPromptTokens(session, history, functions);
      const before = snapshot(session.sequence);
      const emitter = new StreamEmitter(queue, messageId, request.model || this.settings.displayName);
      emitter.start({ input_tokens: prompt.total - prompt.cached, cache_read_input_tokens: prompt.cached });
      generation = session.chat
        .generateResponse(history, {
          signal: stop.signal,
          stopOnAbortSignal: false,
          maxTokens: Math.max(1, Math.min(request.maxTokens, this.settings.contextSize)),
          temperature: this.settings.temperature,
          onResponseChunk: (chunk) => emitter.responseChunk(chunk),
          ...(functions
            ? {
                functions,
                documentFunctionParams: true,
                onFunctionCallParamsChunk: (chunk: ParamsChunk) => emitter.paramsChunk(chunk),
                onFunctionCall: (call: { functionName: string; params: unknown }) =>
                  emitter.functionCall(call),
              }
            : {}),
        })
        .then((response) => {
          const after = snapshot(session.sequence);
          const output = after.output - before.output;
          // llama.cpp counts the prompt's last token as an output position (it yields the logits).
          const evaluated = after.input - before.input + (output > 0 ? 1 : 0);
          emitter.finish(response, {
            input_tokens: prompt.total > 0 ? prompt.total - prompt.cached : evaluated,
            output_tokens: output,
            cache_read_input_tokens: prompt.cached,
            cache_creation_input_tokens: 0,
          });
          queue.end();
        })
        .catch((error: unknown) => {
          if (stop.signal.aborted) return queue.fail(abortError(signal));
          const tooLong = /context (size|shift)/i.test(String((error as Error)?.message));
          const hint = tooLong
            ? ` (the prompt is about ${prompt.total} tokens and the context ${this.settings.contextSize}; set CAIRN_LOCAL_CONTEXT_SIZE higher if the model allows it)`
            : "";
          queue.fail(localError("generation failed", error, hint, tooLong));
        });
      for await (const event of queue) {
        // Nothing more is shown once the caller aborted, even events already queued.
        if (signal.aborted) throw abortError(signal);
        yield event;
      }
    } finally {
      // Stops a generation still running (the consumer left early) and frees the sequence.
      stop.abort(new Error("The model stream was closed."));
      await generation;
      signal.removeEventListener("abort", onAbort);
      release();
    }
  }
}

function toFunctions(
  tools: ToolSpec[],
): Record<string, { description: string; params: unknown }> | undefined {
  if (tools.length === 0) return undefined;
  return Object.fromEntries(
    tools.map((tool) => [
      tool.name,
      { description: tool.description, params: toGrammarSchema(tool.input_schema) },
    ]),
  );
}

/**
 * Prompt size, and how much of it is already in the sequence from the previous call (llama.cpp
 * reuses that prefix of its KV cache, the local equivalent of a prompt-cache read).
 */
function countPromptTokens(
  session: Session,
  history: LlamaChatHistoryItem[],
  functions: Record<string, unknown> | undefined,
): { total: number; cached: number } {
  try {
    const state = session.chat.chatWrapper.generateContextState({
      chatHistory: history,
      ...(functions ? { availableFunctions: functions, documentFunctionParams: true } : {}),
    });
    const tokens = state.contextText.tokenize(session.model.tokenizer);
    const previous = session.sequence.contextTokens;
    let cached = 0;
    // The last prompt token is always evaluated again to get the next token's logits.
    while (cached < tokens.length - 1 && cached < previous.length && tokens[cached] === previous[cached])
      cached++;
    return { total: tokens.length, cached };
  } catch {
    return { total: 0, cached: 0 };
  }
}

function snapshot(sequence: Sequence): { input: number; output: number } {
  return { input: sequence.tokenMeter.usedInputTokens, output: sequence.tokenMeter.usedOutputTokens };
}

/** Turns node-llama-cpp's callbacks into the engine's Anthropic-shaped stream events. */
class StreamEmitter {
  private index = -1;
  private open: "text" | "thinking" | "tool_use" | undefined;
  private callIndex = -1;
  private toolInput: ToolInputStream | undefined;
  private toolCalls = 0;

  constructor(
    private readonly queue: EventQueue<ModelStreamEvent>,
    private readonly messageId: string,
    private readonly model: string,
  ) {}

  start(usage: Partial<Usage>): void {
    const message: StreamedMessage = {
      id: this.messageId,
      type: "message",
      role: "assistant",
      model: this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.input_tokens ?? 0, output_tokens: 0, ...usage },
    };
    this.queue.push({ type: "message_start", message });
  }

  responseChunk(chunk: ResponseChunk): void {
    if (chunk.type === "segment") {
      if (chunk.text !== "") {
        this.ensure("thinking");
        this.delta({ type: "thinking_delta", thinking: chunk.text });
      }
      if (chunk.segmentEndTime && this.open === "thinking") this.close();
      return;
    }
    if (chunk.text === "") return;
    this.ensure("text");
    this.delta({ type: "text_delta", text: chunk.text });
  }

  paramsChunk(chunk: ParamsChunk): void {
    if (chunk.callIndex !== this.callIndex) this.startToolUse(chunk.callIndex, chunk.functionName);
    const text = this.toolInput?.push(chunk.paramsChunk) ?? "";
    if (text !== "") this.delta({ type: "input_json_delta", partial_json: text });
  }

  functionCall(call: { functionName: string; params: unknown }): void {
    const index = this.toolCalls;
    if (this.open !== "tool_use" || this.callIndex !== index) {
      // A call whose parameters were not streamed (a tool that takes none).
      this.startToolUse(index, call.functionName);
      this.delta({
        type: "input_json_delta",
        partial_json: JSON.stringify(dropNullMembers(call.params ?? {})),
      });
    }
    this.toolCalls = index + 1;
    this.close();
  }

  finish(response: ChatResponse, usage: Usage): void {
    this.close();
    const calledTools = this.toolCalls > 0 || (response.functionCalls?.length ?? 0) > 0;
    const stopReason: StopReason = calledTools
      ? "tool_use"
      : response.metadata.stopReason === "maxTokens"
        ? "max_tokens"
        : "end_turn";
    this.queue.push({
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage,
    });
    this.queue.push({ type: "message_stop" });
  }

  private startToolUse(callIndex: number, name: string): void {
    this.close();
    this.callIndex = callIndex;
    this.toolInput = new ToolInputStream();
    this.index += 1;
    this.open = "tool_use";
    const id = `toolu_local_${randomBytes(8).toString("hex")}`;
    this.queue.push({
      type: "content_block_start",
      index: this.index,
      content_block: { type: "tool_use", id, name, input: {} },
    });
  }

  private ensure(kind: "text" | "thinking"): void {
    if (this.open === kind) return;
    this.close();
    this.index += 1;
    this.open = kind;
    this.queue.push({
      type: "content_block_start",
      index: this.index,
      content_block: kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" },
    });
  }

  private delta(delta: Extract<ModelStreamEvent, { type: "content_block_delta" }>["delta"]): void {
    this.queue.push({ type: "content_block_delta", index: this.index, delta });
  }

  private close(): void {
    if (this.open === undefined) return;
    this.queue.push({ type: "content_block_stop", index: this.index });
    this.open = undefined;
  }
}

/** An unbounded push queue read as an async iterable (callbacks in, `for await` out). */
class EventQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private done = false;
  private error: unknown;
  private wake: (() => void) | undefined;

  push(item: T): void {
    this.items.push(item);
    this.notify();
  }

  end(): void {
    this.done = true;
    this.notify();
  }

  fail(error: unknown): void {
    this.error = error ?? new Error("unknown error");
    this.done = true;
    this.notify();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    while (true) {
      if (this.items.length > 0) {
        yield this.items.shift()!;
        continue;
      }
      if (this.done) {
        if (this.error !== undefined) throw this.error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason instanceof Error ? `: ${signal.reason.message}` : "";
  const error = new Error(`The local model call was aborted${reason}`);
  error.name = "AbortError";
  return error;
}

function localError(what: string, error: unknown, hint = "", contextOverflow = false): ProviderError {
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(`Local model ${what}: ${message}${hint}`, undefined, {
    cause: error,
    retryable: false,
    ...(contextOverflow ? { contextOverflow: true } : {}),
  });
}
