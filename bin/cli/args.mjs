// Commands and their flags (node:util parseArgs), checked. Loads nothing else, so that --help and
// --version never load the WebAssembly module.
import { parseArgs } from "node:util";
import { UsageError } from "./errors.mjs";

export const TOKENIZERS = ["heuristic", "o200k_base", "cl100k_base"];
export const INPUT_FORMATS = ["pi", "claude-code", "session", "ai-sdk", "openai", "anthropic", "langchain"];
export const TARGETS = ["ai-sdk", "openai", "anthropic", "langchain", "pi", "pi-jsonl"];

const COMMON = {
  help: { type: "boolean", short: "h" },
  json: { type: "boolean" },
  format: { type: "string" },
};
const SETTINGS = {
  preset: { type: "string" },
  model: { type: "string" },
  window: { type: "string" },
  tokenizer: { type: "string" },
};

export const COMMANDS = {
  inspect: {
    options: { ...COMMON, ...SETTINGS },
    file: "required",
  },
  compact: {
    options: {
      ...COMMON,
      ...SETTINGS,
      summarizer: { type: "string" },
      "summarizer-model": { type: "string" },
      "api-key-env": { type: "string" },
      instructions: { type: "string" },
      retries: { type: "string" },
      out: { type: "string", short: "o" },
      force: { type: "boolean" },
    },
    file: "required",
  },
  convert: {
    options: { ...COMMON, to: { type: "string" }, out: { type: "string", short: "o" } },
    file: "required",
  },
  demo: {
    options: { help: COMMON.help, json: COMMON.json, preset: SETTINGS.preset, window: SETTINGS.window },
    file: "optional",
  },
  inspector: {
    options: { help: COMMON.help, json: COMMON.json, port: { type: "string" } },
    file: "none",
  },
};

function positiveInteger(flag, value, { min = 1 } = {}) {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${flag} must be an integer of at least ${min}, got "${value}"`);
  }
  return Number(value);
}

function oneOf(flag, value, allowed) {
  if (value !== undefined && !allowed.includes(value)) {
    throw new UsageError(`${flag} must be one of ${allowed.join(", ")}, got "${value}"`);
  }
  return value;
}

function checkSummarizer(values) {
  const s = values.summarizer;
  const isUrl = s !== undefined && s !== "extractive";
  if (isUrl) {
    let url;
    try {
      url = new URL(s);
    } catch {
      /* reported below */
    }
    if (!url || !/^https?:$/.test(url.protocol)) {
      throw new UsageError(`--summarizer must be "extractive" or an http(s) URL, got "${s}"`);
    }
    if (!values["summarizer-model"]) throw new UsageError("--summarizer-model is required with a summarizer URL");
  } else {
    for (const flag of ["summarizer-model", "api-key-env"]) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} needs --summarizer URL`);
    }
  }
  if (values["api-key-env"] !== undefined && process.env[values["api-key-env"]] === undefined) {
    throw new UsageError(`--api-key-env: the environment variable ${values["api-key-env"]} is not set`);
  }
}

/** Checks the values of a command's flags; returns them typed. */
function validate(command, values) {
  const out = { ...values };
  out.window = positiveInteger("--window", values.window);
  out.retries = positiveInteger("--retries", values.retries, { min: 0 });
  out.port = positiveInteger("--port", values.port, { min: 0 });
  if (out.port > 65535) throw new UsageError(`--port must be at most 65535, got "${values.port}"`);
  oneOf("--tokenizer", values.tokenizer, TOKENIZERS);
  oneOf("--format", values.format, INPUT_FORMATS);
  if (command === "convert") {
    if (values.to === undefined) throw new UsageError(`--to is required (${TARGETS.join(", ")})`);
    oneOf("--to", values.to, TARGETS);
  }
  if (command === "compact") {
    checkSummarizer(values);
    if (values.json && values.out === "-") throw new UsageError("--json and --out - both write to stdout; pick one");
  }
  if (command === "convert" && values.json && values.out === "-") {
    throw new UsageError("--json and --out - both write to stdout; pick one");
  }
  return out;
}

function parse(argv, options, command = null) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    if (typeof error?.code !== "string" || !error.code.startsWith("ERR_PARSE_ARGS")) throw error;
    const unknown = /^Unknown option '([^']+)'/.exec(error.message);
    const ambiguous = /^Option '(--[^']+)' argument is ambiguous/.exec(error.message);
    const message = unknown
      ? `unknown option ${unknown[1]}${command ? ` for ${command}` : ""}`
      : ambiguous
        ? `${ambiguous[1]} needs a value (one starting with "-" is written ${ambiguous[1]}=-...)`
        : error.message.split("\n")[0];
    throw new UsageError(message, command);
  }
}

/**
 * Reads the command line: `{ command: "help", topic }`, `{ command: "version" }`, or
 * `{ command, file, values }`. Throws `UsageError` (exit 2) for anything it does not know.
 */
export function parseCommandLine(argv) {
  const [first, ...rest] = argv;
  if (first === undefined) throw new UsageError("a command is required");
  if (first.startsWith("-")) {
    const { values, positionals } = parse(argv, { help: { type: "boolean", short: "h" }, version: { type: "boolean" } });
    if (positionals.length) throw new UsageError(`flags go after the command: "${positionals[0]}"`);
    return values.version && !values.help ? { command: "version" } : { command: "help", topic: null };
  }
  if (first === "help") {
    if (rest.length > 1) throw new UsageError("help takes at most one command");
    if (rest[0] !== undefined && !COMMANDS[rest[0]]) throw new UsageError(`unknown command "${rest[0]}"`);
    return { command: "help", topic: rest[0] ?? null };
  }
  const spec = COMMANDS[first];
  if (!spec) {
    const hint = /[./\\]/.test(first) ? ` (to inspect a file: context-compaction inspect ${first})` : "";
    throw new UsageError(`unknown command "${first}"${hint}`);
  }
  const { values, positionals } = parse(rest, spec.options, first);
  if (values.help) return { command: "help", topic: first };
  if (spec.file === "none" && positionals.length > 0) throw new UsageError(`${first} takes no file, got "${positionals[0]}"`, first);
  if (positionals.length > 1) throw new UsageError(`${first} takes one file, got ${positionals.length}`, first);
  if (spec.file === "required" && positionals.length === 0) throw new UsageError(`${first} needs a file`, first);
  try {
    return { command: first, file: positionals[0] ?? null, values: validate(first, values) };
  } catch (error) {
    if (error instanceof UsageError) error.command = first;
    throw error;
  }
}
