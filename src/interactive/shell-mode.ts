import type { PromptBlock } from "../engine/messages.js";
import type { Session } from "../session/session.js";

export type ShellResult =
  | { ran: true; stdout: string; stderr: string; exitCode: number | null; note: string | undefined }
  | { ran: false; why: string };

/**
 * `!command`: the user's own shell command, run as the Bash tool runs the model's — the same
 * permission gate (a deny rule refuses it; what the rules and the mode leave open is asked), the
 * same OS sandbox, environment and timeout, in the session's directory. `ask` puts the question
 * to the user.
 */
export async function runShellCommand(
  command: string,
  session: Session,
  signal: AbortSignal,
  ask: (reason: string) => Promise<boolean>,
): Promise<ShellResult> {
  const run = await session.assembly();
  const bash = run.tools.find((tool) => tool.name === "Bash");
  if (!bash)
    return {
      ran: false,
      why: "the Bash tool is not available in this session (--disallowedTools or --tools)",
    };
  const valid = bash.validate({ command });
  if (!valid.ok) return { ran: false, why: valid.message };
  const verdict = run.gate?.evaluate("Bash", valid.input);
  if (verdict?.behavior === "deny") return { ran: false, why: verdict.message };
  if (verdict?.behavior === "ask" && !(await ask(verdict.message)))
    return { ran: false, why: "not run: the user said no" };
  const outcome = await bash.execute(valid.input, {
    cwd: run.cwd,
    signal,
    toolUseId: `shell-mode-${Date.now()}`,
    env: run.toolEnv,
    ...(run.sandbox ? { sandbox: run.sandbox } : {}),
  });
  const data = (outcome.data ?? {}) as { stdout?: string; stderr?: string; exitCode?: number | null };
  if (data.stdout === undefined) return { ran: false, why: outcome.content };
  const ending = outcome.content.split("\n").at(-1) ?? "";
  const note = /^(Command |Exit code )/.test(ending) ? ending : undefined;
  return {
    ran: true,
    stdout: data.stdout,
    stderr: data.stderr ?? "",
    exitCode: data.exitCode ?? null,
    note,
  };
}

/**
 * How the conversation keeps a `!` command, as the reference records its shell mode: the command as
 * `<bash-input>`, then its output as `<bash-stdout>…</bash-stdout><bash-stderr>…</bash-stderr>`,
 * user text the model reads before the next prompt.
 */
export function shellRecords(command: string, result: ShellResult): PromptBlock[] {
  const output = result.ran
    ? `<bash-stdout>${result.stdout.replace(/\n$/, "")}</bash-stdout><bash-stderr>${[
        result.stderr.replace(/\n$/, ""),
        result.note,
      ]
        .filter(Boolean)
        .join("\n")}</bash-stderr>`
    : `<bash-stdout></bash-stdout><bash-stderr>${result.why}</bash-stderr>`;
  return [
    { type: "text", text: `<bash-input>${command}</bash-input>` },
    { type: "text", text: output },
  ];
}
