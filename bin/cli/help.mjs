// The --help texts: the tool's and each command's (exit codes included).

const EXIT_CODES = `Exit codes:
  0  success
  1  bad input: a missing or malformed file (the line or field is named), a file that is not a
     session or message array, invalid messages (INVALID_INPUT)
  2  usage: an unknown command or flag, a missing or bad value (also INVALID_OPTIONS)
  3  the summarizer failed (SUMMARIZER_FAILED, SUMMARY_EMPTY, TIMEOUT, NO_PROGRESS); nothing written`;

const INPUTS = `Input files (detected; --format to force):
  pi session JSONL, Claude Code session JSONL (main sessions and subagent transcripts), a
  context-compaction session log (Session.toJSONL(), what compact writes), or a JSON array of
  messages (AI SDK, OpenAI, Anthropic, LangChain or pi; also {"messages": [...]}). "-" reads stdin.`;

const WINDOW = `  --preset P            a preset (pi, codex, opencode, claude-code, langchain, anthropic-api,
                        pi-plan, compaction-layer, block-pipeline, workstream)
  --model M             a model name: its context window (and, for OpenAI models, tokenizer)
  --window N            the context window in tokens (default 200000 without --model)
  --tokenizer T         counting for the trigger and plan: heuristic, o200k_base, cl100k_base
                        (default heuristic, or the model's encoding)
  --format F            force the input format: pi, claude-code, session, ai-sdk, openai,
                        anthropic, langchain`;

export const HELP = {
  inspect: `Usage: context-compaction inspect <file> [options]

What the session holds and what compaction would do: the detected format; messages raw (the whole
history) and live (what the agent would send now, after the compactions recorded in the file);
those compactions (line, tokens before, trigger, summary length); tokens by kind, estimated
(heuristic) and exact (o200k_base); the trigger state for the window; the plan of a compaction now.

Options:
${WINDOW}
  --json                one JSON object on stdout (fields in docs/cli.md)
  -h, --help            this text

${INPUTS}

${EXIT_CODES}`,
  compact: `Usage: context-compaction compact <file> [options]

Compacts the live context now (forced: whether or not the trigger fires), and writes the whole
session, the new compaction included, as a context-compaction session log (JSONL) that inspect,
compact and Session.fromJSONL read back. Without --out nothing is written: the report says what
would change.

Options:
${WINDOW}
  --summarizer S        "extractive" (default: the built-in summary, no network) or the URL of an
                        OpenAI-compatible chat-completions endpoint, e.g.
                        http://localhost:11434/v1/chat/completions
  --summarizer-model M  the "model" sent to the endpoint (required with a URL)
  --api-key-env VAR     send "Authorization: Bearer $VAR" (the variable must be set)
  --instructions TEXT   extra instructions for the summary
  --retries N           retries of a failed summarizer call (default 2)
  -o, --out FILE        write the session log to FILE ("-": stdout, the report then goes to stderr);
                        FILE naming the input (or a link to it) is refused without --force
  --force               let --out replace the input file
  --json                one JSON object on stdout (fields in docs/cli.md)
  -h, --help            this text

A progress bar is drawn on stderr when it is a terminal.

${INPUTS}

${EXIT_CODES}`,
  convert: `Usage: context-compaction convert <file> --to <format> [--out FILE]

Writes the live messages (what the agent would send now) in another format: a JSON array for
ai-sdk, openai, anthropic, langchain or pi; a pi session file (JSONL) for pi-jsonl.

Options:
  --to F                ai-sdk, openai, anthropic, langchain, pi, pi-jsonl (required)
  -o, --out FILE        write to FILE (default: stdout)
  --format F            force the input format (as in inspect)
  --json                one JSON object on stdout; without --out it holds the output
  -h, --help            this text

${INPUTS}

${EXIT_CODES}`,
  demo: `Usage: context-compaction demo [file] [--window N] [--preset P] [--json]

Inspects a session, compacts it with the extractive summary (in memory, nothing written), and
inspects the result: before and after. The default file is the real Claude Code session that ships
with the package (www/sample/claude-code-tool-heavy.jsonl, MIT, its license beside it); the default
window, 3000 tokens, puts it past the trigger.

${EXIT_CODES}`,
  inspector: `Usage: context-compaction inspector [--port N] [--json]

Serves the inspector page and the token counter of the installed package on 127.0.0.1 and prints
their addresses; open the first in a browser. Everything the pages load (the package's web entry,
its WebAssembly module, the rank tables, the sample session) comes from the package: no network.
Runs until Ctrl-C.

Options:
  --port N              the port (default 0: any free one)
  --json                print {"command","ok","url","pages"} as one JSON line instead
  -h, --help            this text

Exit codes:
  0  stopped by Ctrl-C (SIGINT) or SIGTERM
  1  the port cannot be had, or the page's files are missing
  2  usage`,
};

export const USAGE = `Usage: context-compaction <command> [options]

Inspect, compact and convert LLM-agent sessions with the context-compaction package.

Commands:
  inspect <file>            format, messages raw and live, recorded compactions, tokens by kind
                            (estimated and exact), the trigger state and the compaction plan
  compact <file>            compact now (extractive summary or an OpenAI-compatible endpoint)
                            and write the session log (--out FILE)
  convert <file> --to F     the live messages as ai-sdk, openai, anthropic, langchain, pi or pi-jsonl
  demo [file]               inspect, compact and inspect again (what npm start runs)
  inspector [--port N]      serve the inspector page on 127.0.0.1 (offline)
  help [command]            this text, or a command's

Options:
  -h, --help                this text; after a command, the command's
  --version                 the package version

Run "context-compaction <command> --help" for a command's options.

${INPUTS}

${EXIT_CODES}`;
