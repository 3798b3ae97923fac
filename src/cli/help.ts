/**
 * `cairn --help`, written for a person reading it in a terminal rather than generated from the
 * option table: what cairn does, how to run it, what each flag is for, and what it prints.
 * Keep it in step with the README's CLI reference.
 */
export const HELP = `cairn: a headless coding agent.

Give it a task; it works on the files in the current directory (reading, writing and editing files,
running shell commands, searching) until the task is done, prints the outcome and exits.

Usage:
  cairn ["<prompt>"] [options]          at a terminal: the interactive mode (docs/interactive.md)
  cairn -p "<prompt>" [options]         run one prompt and print the answer
  echo "<prompt>" | cairn [options]     the same, with the prompt on stdin
  cairn models [--prices | --json]      the models ('<id> - <name>'; each id works with --model);
                                        --prices: prices, aliases and how each provider is set up
  cairn ls [--json]                     list the sessions recorded for this directory
  cairn resume -p "<prompt>"            continue the latest session here (= --continue)
  cairn mcp list | list-tools <server>  the MCP servers a run here gets, and their tools
  cairn mcp enable | disable <server>   approve a project MCP server here, or withdraw it
  cairn acp [--model <model>]           an Agent Client Protocol agent on stdio, for editors
  cairn report <session-id|file|-> [-o <file>] [--redact]
                                        a session's report: one self-contained HTML page
  cairn status | whoami [--format json] which model and key a run here would use (no model call)
  cairn about [--format json]           version, model, platform
  cairn create-chat                     a new empty session for this directory; prints its id
  cairn login | logout | update | help  how cairn is configured and updated; this help
                                        (every subcommand and flag, with the reference CLI's: docs/cli.md)

Options:
  -p, --print                   Run the prompt headless and exit. Implied when stdout is not a
                                terminal or the prompt is piped on stdin.
  --output-format <format>      What to print (default: text):
                                  text         only the final answer
                                  json         one JSON result object when the run ends
                                  stream-json  one JSON event per line as the run goes
  --stream-partial-output       With stream-json: also print the answer's text while it is being
                                written, in small pieces.
  -m, --model <model>           The model: anthropic/<model> (or just claude-...), openai/<model>,
                                ollama/<model> and other local servers, or replay:<scenario.json>
                                for an offline, scripted replay. sonnet, opus and haiku name the
                                current model of that family; default and auto the default model.
                                The reference CLI's ids (sonnet-4.6-thinking, gpt-5.2-high,
                                composer-2, ...) run their matching model, else the default one.
                                See cairn models.
  --api-key <key>               API key for the model's provider (else from the environment,
                                e.g. ANTHROPIC_API_KEY).
  --base-url <url>              Where the model's provider is reached (else from the environment,
                                e.g. ANTHROPIC_BASE_URL); needed for openai-compatible/ models.
  -f, --force, --yolo           Allow every tool call unless a rule explicitly denies it (protected
                                paths such as .git/hooks still need an explicit allow rule).
  --permission-mode <mode>      default | acceptEdits | plan | bypassPermissions. Without it, print
                                mode allows reads and edits inside the workspace and read-only
                                shell commands; anything else needs a rule or --force.
  --allowedTools <rules...>     Allow rules: Read, Bash(git log:*), Write(docs/**), Shell(git), ...
  --disallowedTools <rules...>  Deny rules, same syntax; deny always wins.
  --add-dir <dir...>            More directories the agent may read and edit.
  --fail-on-denial              Exit 3 when any tool call was denied.
  --report <file>               When the run is over (also failed or interrupted), write the
                                session's HTML report to <file> (docs/report.md).
  --mcp-config <config>         MCP servers: a file or JSON {"mcpServers": {...}}; repeatable.
  --strict-mcp-config           Only the servers of --mcp-config (none from config files).
  --approve-mcps                Let the project's MCP servers (.mcp.json, .cursor/mcp.json) start.
  --mode plan|ask, --plan       The reference CLI's read-only modes: plan (= --permission-mode plan);
                                ask is plan without shell commands. They hold over --force.
  --new-session-id <uuid>       Start the new session under this id (a UUIDv4).
  --list-models                 List the models (as cairn models) and exit.
  --screen-reader               The interactive mode as plain lines, without redraws (as TERM=dumb).
  -H, --header "Name: Value"    An extra header on every model request; repeatable.
  --print-thinking              With stream-json: print the model's thinking as the reference CLI's
                                thinking events (or CAIRN_PRINT_THINKING=1). Off by default.
  --tool-payloads full|contract With stream-json: full (the default) prints the reference CLI's real
                                tool payloads (file sizes, before/after contents, interleaved
                                output); contract only the published contract's fields. Or
                                CAIRN_TOOL_PAYLOADS.
  --trust                       Run the workspace's own hooks (.claude/settings.json, .cursor/hooks.json).
  --setting-sources <list>      Which files load: user,project,local (default: all; "" loads none):
                                config, instruction files, commands, skills (docs/agents.md).
  --sandbox <mode>              auto | enabled | disabled: the OS sandbox under shell commands
                                (Linux, bubblewrap). By default it is used where it works; auto
                                also says once where it cannot, enabled makes that an error.
  --sandbox-network             Let sandboxed commands use the network (default: none).
  --sandbox-allow-domain <d>    Let sandboxed commands reach host d over HTTP(S), through cairn's
                                proxy (*.example.com: every name below it); repeatable. Every
                                other host is refused, also with --force.
  --web-search <backend>        provider | searxng | off: WebSearch through the model provider's
                                own search where it has one (default), a SearXNG instance, or none.
  -r, --resume [id]             Continue session <id> (same id; an unknown id starts a new session
                                under it, with a note); without an id, the latest one here.
  -c, --continue                Continue the latest session of this directory.
  --fork-session                With --resume/--continue: continue under a new session id.
  --workspace <dir>             The directory to work in (default: the current directory).
  --max-turns <n>               Give up (exit 1) after n model turns.
  --max-budget-usd <usd>        Give up (exit 1) once the run has cost more than usd.
  --fallback-model <model>      Use this model when the model is overloaded or unavailable.
  --context-window <tokens>     The model's context window (unknown models: 32768); the
                                conversation is compacted before it would not fit.
  --thinking <mode>             adaptive | enabled | disabled; --max-thinking-tokens <n> sets a
                                thinking budget (0 disables).
  --effort <level>              low | medium | high | xhigh | max reasoning effort.
  -v, --version                 Print the version.
  -h, --help                    Print this help.

Examples:
  cairn -p "Summarise README.md into summary.txt"
  cairn -p "Which tests are failing?" --output-format json
  cairn -p "Rename getUser to fetchUser" --output-format stream-json --stream-partial-output
  echo "List the TODO comments in src/" | cairn --output-format json

A prompt given as an argument wins and stdin is then not read at all, so a program that leaves
cairn's stdin open can never make it wait. Without -p, at a terminal (stdin and stdout both), cairn
starts its interactive mode, with the prompt given as the first message (docs/interactive.md);
--screen-reader makes it plain lines without redraws.

Environment:
  ANTHROPIC_API_KEY    key for anthropic/ models        CAIRN_MODEL   default model
  ANTHROPIC_BASE_URL   any server speaking the Anthropic Messages API
  OPENAI_API_KEY       key for openai/ models           CAIRN_HOME    sessions and config (~/.cairn)

Exit codes: 0 success; 1 the run failed (model or provider error, --max-turns or --max-budget-usd
reached, --fork-session of an unknown session, session in use); 2 usage error (bad flag or value, no prompt, unknown
model, missing key, bad config or rule, --sandbox enabled without bubblewrap); 3 denials with
--fail-on-denial; 129 hung up (SIGHUP); 130 interrupted (Ctrl-C); 143 terminated (SIGTERM). Errors
are one line on stderr; stdout carries only the chosen format.

Output formats, events and tool payloads: docs/events.md
`;
