import type { RecordedRequest, StepInput } from "../../src/testing/index.js";

/**
 * A scripted model that answers by who is asking: the parent and each subagent have their own
 * script, picked by a marker in the request's system prompt, and each script's next step is taken
 * by how many of that asker's requests came before. Subagents run concurrently, so their requests
 * interleave in any order; each still gets its own conversation.
 */
export type Asker = { marker: string; steps: StepInput[] };

export function byAsker(askers: Asker[]): {
  respond: (request: RecordedRequest) => StepInput | undefined;
  /** The requests each asker sent, by marker. */
  requests: Map<string, RecordedRequest[]>;
} {
  const requests = new Map<string, RecordedRequest[]>(askers.map((asker) => [asker.marker, []]));
  const respond = (request: RecordedRequest): StepInput | undefined => {
    const system = systemText(request);
    // The most specific marker first: a subagent's prompt, the parent's last.
    const asker = askers.find((candidate) => system.includes(candidate.marker));
    if (!asker) return undefined;
    const seen = requests.get(asker.marker)!;
    seen.push(request);
    return asker.steps[seen.length - 1] ?? undefined;
  };
  return { respond, requests };
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
