import type { SDKUserMessage } from "./messages.js";
import type { Options } from "./options.js";
import { type Query, query } from "./query.js";

/**
 * `startup()` and `prewarm()`: the convention pre-spawns and initializes its CLI so the first query
 * starts sooner. cairn has no process to start; both validate the options at once (so a bad option
 * fails here, as the reference's initialize would) and hand back an object whose query runs in this
 * process like any other. The first query loads the engine's modules either way.
 */

export type WarmQuery = AsyncDisposable & {
  /** Starts the query (once: a second call throws, as in the convention). */
  query(prompt: string | AsyncIterable<SDKUserMessage>): Query;
  close(): void;
};

export type StartupParams = { options?: Options; initializeTimeoutMs?: number };

export async function startup(params: StartupParams = {}): Promise<WarmQuery> {
  const options = params.options ?? {};
  // Validation only: query() checks the options synchronously before anything starts.
  query({ prompt: "startup", options }).close();
  let used = false;
  let closed = false;
  let running: Query | undefined;
  const warm: WarmQuery = {
    query(prompt) {
      if (closed) throw new Error("cairn startup(): this WarmQuery was closed.");
      if (used) throw new Error("cairn startup(): WarmQuery.query() can be called only once.");
      used = true;
      running = query({ prompt, options });
      return running;
    },
    close() {
      closed = true;
      running?.close();
    },
    async [Symbol.asyncDispose]() {
      warm.close();
    },
  };
  return warm;
}

/** What `SpareProcess.claim()` binds: the working directory and the settings a query needs. */
export type ClaimOptions = {
  cwd: string;
  env?: Record<string, string>;
  additionalDirectories?: string[];
  model?: string;
  permissionMode?: Options["permissionMode"];
  maxThinkingTokens?: number | null;
  settings?: Record<string, unknown>;
  appendSystemPrompt?: string;
  title?: string;
  agents?: Options["agents"];
};

export type SpareProcess = AsyncDisposable & {
  claim(params: { prompt: string | AsyncIterable<SDKUserMessage>; options: ClaimOptions }): Query;
  readonly claimed: Promise<{ cwd: string; sessionId: string; parkedMs?: number; sdkMcpSettled: boolean }>;
  readonly exited: Promise<void>;
  close(): void;
};

/**
 * A "spare" bound later with `claim()`: the claim's options are laid over `params.options`
 * (`appendSystemPrompt` appended to cairn's system prompt, `maxThinkingTokens: null` leaves thinking
 * as configured). `claimed` resolves with the query's session id once its first message is read;
 * `exited` when the claimed query ends or the spare is closed.
 */
export async function prewarm(params: StartupParams = {}): Promise<SpareProcess> {
  const base = params.options ?? {};
  query({ prompt: "prewarm", options: base }).close();
  const parkedAt = Date.now();
  let claimedResolve: (value: Awaited<SpareProcess["claimed"]>) => void = () => {};
  let exitedResolve: () => void = () => {};
  const claimed = new Promise<Awaited<SpareProcess["claimed"]>>((resolve) => {
    claimedResolve = resolve;
  });
  const exited = new Promise<void>((resolve) => {
    exitedResolve = resolve;
  });
  let running: Query | undefined;
  let closed = false;
  const spare: SpareProcess = {
    claimed,
    exited,
    claim({ prompt, options }) {
      if (closed) throw new Error("cairn prewarm(): spare_closed: this spare was closed.");
      if (running) throw new Error("cairn prewarm(): not_a_spare: this spare was already claimed.");
      const { appendSystemPrompt, maxThinkingTokens, settings: _settings, ...rest } = options;
      const merged: Options = {
        ...base,
        ...rest,
        ...(maxThinkingTokens !== undefined && maxThinkingTokens !== null ? { maxThinkingTokens } : {}),
        ...(appendSystemPrompt !== undefined
          ? { systemPrompt: { type: "preset", preset: "claude_code", append: appendSystemPrompt } }
          : {}),
      };
      const inner = query({ prompt, options: merged });
      running = inner;
      return watchClaim(inner, options.cwd, parkedAt, claimedResolve, exitedResolve);
    },
    close() {
      closed = true;
      running?.close();
      exitedResolve();
    },
    async [Symbol.asyncDispose]() {
      spare.close();
    },
  };
  return spare;
}

/** The claimed query, reporting its session id on its first message and its end. */
function watchClaim(
  inner: Query,
  cwd: string,
  parkedAt: number,
  onClaimed: (value: Awaited<SpareProcess["claimed"]>) => void,
  onExited: () => void,
): Query {
  const next = inner.next.bind(inner);
  inner.next = async (...args) => {
    try {
      const step = await next(...args);
      if (!step.done) {
        onClaimed({
          cwd,
          sessionId: step.value.session_id ?? "",
          parkedMs: Date.now() - parkedAt,
          sdkMcpSettled: true,
        });
      } else onExited();
      return step;
    } catch (error) {
      onExited();
      throw error;
    }
  };
  return inner;
}
