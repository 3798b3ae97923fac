import { type RecordedRequest, reply, type StepInput } from "../../src/testing/index.js";

/**
 * A scripted model that answers by who is asking: the parent and each subagent have their own
 * script, picked by a marker in the request's system prompt, and each script's next step is taken
 * by how many of that asker's requests came before. Subagents run concurrently, so their requests
 * interleave in any order; each still gets its own conversation.
 */
export type Asker = {
  marker: string;
  steps: StepInput[];
  /**
   * Answer this asker's first request only once the asker with this marker has sent one: both are
   * then running at the same time (run one after the other, the test would wait for ever).
   */
  awaits?: string;
};

export function byAsker(askers: Asker[]): {
  respond: (request: RecordedRequest) => Promise<StepInput | undefined>;
  /** The requests each asker sent, by marker. */
  requests: Map<string, RecordedRequest[]>;
} {
  const requests = new Map<string, RecordedRequest[]>(askers.map((asker) => [asker.marker, []]));
  const arrived = new Map(askers.map((asker) => [asker.marker, deferred()]));
  const respond = async (request: RecordedRequest): Promise<StepInput | undefined> => {
    const system = systemText(request);
    // The most specific marker first: a subagent's prompt, the parent's last.
    const asker = askers.find((candidate) => system.includes(candidate.marker));
    if (!asker) return undefined;
    const seen = requests.get(asker.marker)!;
    seen.push(request);
    arrived.get(asker.marker)!.resolve();
    if (asker.awaits !== undefined && seen.length === 1) await arrived.get(asker.awaits)!.promise;
    return asker.steps[seen.length - 1] ?? undefined;
  };
  return { respond, requests };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export function systemText(request: RecordedRequest): string {
  return JSON.stringify((request.body as { system?: unknown }).system ?? "");
}

export function toolNames(request: RecordedRequest): string[] {
  return ((request.body as { tools?: { name: string }[] }).tools ?? []).map((tool) => tool.name);
}

/** Every text the request's messages hold (prompts, tool results), joined. */
export function messagesText(request: RecordedRequest): string {
  return JSON.stringify((request.body as { messages?: unknown }).messages ?? []);
}

/** The parent's marker: cairn's own system prompt. */
export const PARENT = "You are cairn, a coding agent";

const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output });

/**
 * The parent delegates to `reviewer` (Agent) and `lister` (Task, the legacy name) in one reply, then
 * sums up; neither agent is answered before both have asked (they run concurrently). The reviewer reads a.txt and tries Bash, which its tools leave out; the lister globs. Each
 * model call reports its usage: the parent 1000/50 and 1500/7, the reviewer 100/10 and 110/5, the
 * lister 200/20 and 210/6.
 */
export function twoAgentsScript() {
  return byAsker([
    {
      marker: "REVIEWER",
      awaits: "LISTER",
      steps: [
        reply()
          .tool("Read", { file_path: "a.txt" }, "toolu_r1")
          .tool("Bash", { command: "rm a.txt" }, "toolu_r2")
          .usage(usage(100, 10)),
        reply().text("a.txt says hello.").usage(usage(110, 5)),
      ],
    },
    {
      marker: "LISTER",
      awaits: "REVIEWER",
      steps: [
        reply().tool("Glob", { pattern: "*.txt" }, "toolu_l1").usage(usage(200, 20)),
        reply().text("One file: a.txt.").usage(usage(210, 6)),
      ],
    },
    {
      marker: PARENT,
      steps: [
        reply()
          .text("Delegating.")
          .tool(
            "Agent",
            { description: "Review a.txt", prompt: "Review a.txt", subagent_type: "reviewer" },
            "toolu_p1",
          )
          .tool(
            "Task",
            { description: "List files", prompt: "List the files", subagent_type: "lister" },
            "toolu_p2",
          )
          .usage(usage(1000, 50)),
        reply().text("Both agents reported.").usage(usage(1500, 7)),
      ],
    },
  ]);
}

/** The parent delegates to `reviewer`, whose model request is never answered. */
export function hangingAgentScript() {
  return byAsker([
    { marker: "REVIEWER", steps: [{ kind: "hang" }] },
    {
      marker: PARENT,
      steps: [
        reply().tool(
          "Agent",
          { description: "Review", prompt: "Review a.txt", subagent_type: "reviewer" },
          "toolu_p1",
        ),
      ],
    },
  ]);
}

/** Both agents' model calls and the parent's: what the run's usage must add up to. */
export const TWO_AGENTS_USAGE = {
  input: 1000 + 1500 + 100 + 110 + 200 + 210,
  output: 50 + 7 + 10 + 5 + 20 + 6,
};
