import type { SessionEvent } from "../session/events.js";
import type { Session } from "../session/session.js";
import type { Styles } from "./style.js";
import { printable, truncate } from "./text-width.js";

type Todo = { content: string; status: string; activeForm?: string };
type Subagent = { label: string; calls: number; doing: string | undefined };

/** At most this many todo rows in the live region (the rest counted). */
const MAX_TODOS = 8;

/**
 * What goes on besides the answer, for the live region: the todo list as the model last wrote it
 * (TodoWrite), and each running subagent (the Agent tool) with what it is doing now and how many
 * tool calls it made. Both are state, redrawn while it changes; the todo list is also committed
 * under each TodoWrite call, so its last state stays in the conversation.
 */
export class ActivityView {
  todos: Todo[] = [];
  private readonly subagents = new Map<string, Subagent>();

  constructor(private readonly session: Session) {}

  event(event: SessionEvent): void {
    if (event.type === "tool_start" && event.name === "TodoWrite" && Array.isArray(event.input.todos))
      this.todos = (event.input.todos as Todo[]).filter((todo) => typeof todo?.content === "string");
    else if (event.type === "subagent") {
      const agent = this.subagents.get(event.toolUseId) ?? {
        label: `${event.agentType}: ${event.description}`,
        calls: 0,
        doing: undefined,
      };
      this.subagents.set(event.toolUseId, agent);
      const inner = event.event;
      if (inner.type === "tool_start") {
        agent.calls += 1;
        agent.doing = this.session.describe(inner.name, inner.input, { live: false }).title;
      } else if (inner.type === "tool_end") agent.doing = undefined;
    } else if (event.type === "tool_end") this.subagents.delete(event.toolUseId);
  }

  /** The turn ended: no subagent runs any more (the todo list stays until the next is written). */
  ended(): void {
    this.subagents.clear();
  }

  /** The row of the subagent the Agent call `toolUseId` runs, for the live region (under its call). */
  subagentRow(toolUseId: string, styles: Styles, width: number): string | undefined {
    const agent = this.subagents.get(toolUseId);
    if (!agent) return undefined;
    const calls = `${agent.calls} tool call${agent.calls === 1 ? "" : "s"}`;
    const text = printable(`  ⎿ ${agent.label} · ${agent.doing ?? "thinking"} · ${calls}`).replace(
      /\n/g,
      " ",
    );
    return styles.dim(truncate(text, width));
  }

  /** The todo list: ☐ pending, ◼ in progress (bold, its active form), ☑ completed (dim). */
  todoRows(styles: Styles, width: number): string[] {
    const rows = this.todos.slice(0, MAX_TODOS).map((todo) => {
      const text = (mark: string, words: string) =>
        truncate(printable(`${mark} ${words}`).replace(/\n/g, " "), width);
      if (todo.status === "completed") return styles.dim(text("☑", todo.content));
      if (todo.status === "in_progress") return styles.bold(text("◼", todo.activeForm ?? todo.content));
      return text("☐", todo.content);
    });
    const more = this.todos.length - MAX_TODOS;
    if (more > 0) rows.push(styles.dim(`  … ${more} more`));
    return rows;
  }
}
