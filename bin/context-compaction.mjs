#!/usr/bin/env node
// context-compaction: inspect, compact and convert agent sessions with the package itself.
//   context-compaction inspect <file> [--preset P] [--model M | --window N] [--tokenizer T] [--json]
//   context-compaction compact <file> [--summarizer extractive|URL] [--out FILE] [--json] ...
//   context-compaction convert <file> --to ai-sdk|openai|anthropic|langchain|pi|pi-jsonl [--out FILE]
//   context-compaction demo [file]
//   context-compaction inspector [--port N]
// Exit codes: 0 ok, 1 bad input, 2 usage, 3 summarizer failure (docs/cli.md). A reader that stops
// early (`| head`) ends the run quietly, with the exit code so far (0).
// Commands load the package (and its WebAssembly) only when they run: --help and --version do not.
import { readFileSync } from "node:fs";
import { parseCommandLine } from "./cli/args.mjs";
import { HELP, USAGE } from "./cli/help.mjs";
import { CliError, UsageError, describeError, exitCodeOf, formatError } from "./cli/errors.mjs";

// A closed pipe is the reader saying it has enough: stop writing, no 'error' event left unhandled,
// no stack trace. Any other failure to write is reported once on stderr (if it still can be).
function onOutputError(error) {
  if (error?.code !== "EPIPE") {
    process.exitCode = 1;
    try {
      process.stderr.write(`context-compaction: cannot write the output: ${error?.message ?? error}\n`);
    } catch {
      /* stderr is gone too */
    }
  }
  process.exit();
}
process.stdout.on("error", onOutputError);
process.stderr.on("error", onOutputError);

const print = (text) => process.stdout.write(`${text}\n`);
const printJson = (value) => print(JSON.stringify(value, null, 2));

async function run(parsed) {
  const { command, file, values } = parsed;
  switch (command) {
    case "help":
      print(parsed.topic ? HELP[parsed.topic] : USAGE);
      return;
    case "version":
      print(JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version);
      return;
    case "inspect": {
      const { inspectFile, formatInspect } = await import("./cli/inspect.mjs");
      const report = inspectFile(file, values);
      values.json ? printJson(report) : print(formatInspect(report));
      return;
    }
    case "compact": {
      const { compactFile, checkOut, writeLog, formatCompact } = await import("./cli/compact.mjs");
      checkOut(values.out, { input: file, force: values.force === true });
      // The log is written in parts as the Session gives them, once the compaction succeeded.
      const write = (parts) => writeLog(parts, values.out, { input: file, force: values.force === true });
      const { report } = await compactFile(file, values, { write });
      if (values.json) printJson(report);
      else if (values.out === "-") process.stderr.write(`${formatCompact(report)}\n`);
      else print(formatCompact(report));
      return;
    }
    case "convert": {
      const [{ convertText, formatConvert }, { readInput }] = await Promise.all([import("./cli/convert.mjs"), import("./cli/load.mjs")]);
      const { writeLog } = await import("./cli/compact.mjs");
      const { report, output } = convertText(readInput(file), file, values);
      const toFile = values.out !== undefined && values.out !== "-";
      if (values.json) {
        if (toFile) writeLog(output, values.out);
        printJson(toFile ? report : { ...report, output: values.to === "pi-jsonl" ? output : JSON.parse(output) });
      } else if (toFile) {
        writeLog(output, values.out);
        print(formatConvert(report));
      } else {
        process.stdout.write(output);
      }
      return;
    }
    case "demo": {
      const { demo, formatDemo } = await import("./cli/demo.mjs");
      const report = await demo(file, values);
      values.json ? printJson(report) : print(formatDemo(report));
      return;
    }
    case "inspector": {
      const { serveInspector, formatInspector } = await import("./cli/inspector.mjs");
      // Listening for the stop signals before the address is printed: whoever reads it may stop us at once.
      const stopped = new Promise((resolve) => {
        for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, resolve);
      });
      const server = await serveInspector(undefined, { port: values.port ?? 0 });
      values.json ? print(JSON.stringify({ command: "inspector", ok: true, url: server.url, pages: server.pages })) : print(formatInspector(server));
      await stopped;
      await server.close();
      return;
    }
  }
}

let parsed;
try {
  parsed = parseCommandLine(process.argv.slice(2));
  await run(parsed);
} catch (error) {
  // A write to a closed stdout that threw rather than emitted: the same quiet end.
  if (error?.code === "EPIPE") process.exit();
  const exitCode = exitCodeOf(error);
  if (error instanceof UsageError) {
    const help = error.command ? `context-compaction ${error.command} --help` : "context-compaction --help";
    process.stderr.write(`context-compaction: ${error.message}\nRun "${help}" for usage.\n`);
  } else {
    const file = parsed?.file ?? null;
    process.stderr.write(`${formatError(error, file)}\n`);
    if (parsed?.values?.json) printJson({ command: parsed.command, ok: false, file, exitCode, error: describeError(error) });
    if (!(error instanceof CliError) && !error?.code && error?.stack) process.stderr.write(`${error.stack}\n`);
  }
  process.exitCode = exitCode;
}
