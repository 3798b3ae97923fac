import type { RunRow } from "../durable/database.js";
import { type AgentView, type Context, withoutCredentials } from "./agent-records.js";

/**
 * The v0 (Background Agents API) view of an agent's state. v0 has no runs: an agent's status is
 * its latest run's, in v0's names (CREATING, RUNNING, FINISHED, ERROR, EXPIRED). A stopped run
 * (v1's CANCELLED, which v0 has no name for) shows as ERROR, its summary saying it was stopped.
 * cairn never expires an agent, so EXPIRED does not occur.
 */
export function v0Status(runStatus: string | undefined): string {
  if (runStatus === undefined) return "CREATING";
  return runStatus === "CANCELLED" ? "ERROR" : runStatus;
}

/** The agent's `target`: where to look at it, its branch, whether a PR was asked for (none is opened). */
export function agentTarget(
  context: Pick<Context, "baseUrl">,
  agentId: string,
  options: { branch_name?: string | null; auto_create_pr?: boolean | null },
) {
  return {
    url: `${context.baseUrl}/v0/agents/${agentId}`,
    ...(options.branch_name ? { branchName: options.branch_name } : {}),
    autoCreatePr: options.auto_create_pr ?? false,
  };
}

/** The v0 agent object (launch, status, list). */
export function v0AgentJson(context: Context, agent: AgentView, latest: RunRow | undefined) {
  const summary =
    latest?.status === "CANCELLED"
      ? "The agent was stopped."
      : (latest?.result ?? latest?.error ?? undefined);
  return {
    id: agent.id,
    name: agent.name,
    status: v0Status(latest?.status),
    source: {
      repository: withoutCredentials(agent.repository ?? null) ?? agent.cwd,
      ...(agent.ref ? { ref: agent.ref } : {}),
    },
    target: agentTarget(context, agent.id, agent),
    ...(summary ? { summary } : {}),
    createdAt: agent.created_at.toISOString(),
  };
}
