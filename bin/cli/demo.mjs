// demo (npm start): inspect a session, compact it with the extractive summary in memory, inspect the
// compacted session log: before and after.
import { isAbsolute, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { compactText, formatCompact } from "./compact.mjs";
import { CliError, EXIT } from "./errors.mjs";
import { formatInspect, inspectInput } from "./inspect.mjs";
import { loadInput, readInput } from "./load.mjs";
import { compactorOptions } from "./settings.mjs";
import { formatStoreDemo, storeDemo } from "./demo-store.mjs";

/**
 * The real Claude Code session the package ships with the inspector (www/sample, its license
 * beside it): the demo runs from an install as from a clone.
 */
export const DEMO_FILE = fileURLToPath(new URL("../../www/sample/claude-code-tool-heavy.jsonl", import.meta.url));
/** Small enough for the bundled session (about 2,500 tokens) to be past the trigger. */
export const DEMO_WINDOW = 3_000;

export async function demo(file, values) {
  const near = relative(process.cwd(), DEMO_FILE);
  const path = file ?? (near.startsWith("..") || isAbsolute(near) ? DEMO_FILE : near);
  let text;
  try {
    text = readInput(path);
  } catch (error) {
    if (file) throw error;
    throw new CliError(`the sample session ${path} that ships with the package is missing (reinstall the package, or pass a file)`, EXIT.INPUT, { code: error.code });
  }
  const settings = { preset: values.preset, window: values.window ?? DEMO_WINDOW };
  const before = inspectInput(loadInput(text), path, settings);
  const { report, log } = await compactText(text, path, { ...settings, summarizer: "extractive" });
  const after = inspectInput(loadInput(log), `${path} (compacted, in memory)`, settings);
  const input = loadInput(text);
  const stored = await storeDemo(input.live, input.format, compactorOptions(settings));
  return { command: "demo", ok: true, file: path, before, compact: report, after, stored };
}

export function formatDemo(r) {
  const rule = (title) => `\n=== ${title} ${"=".repeat(Math.max(3, 72 - title.length))}\n`;
  return [
    rule("before: context-compaction inspect").trimStart(),
    formatInspect(r.before),
    rule("context-compaction compact --summarizer extractive"),
    formatCompact(r.compact, "nothing (the demo keeps the session log in memory)"),
    rule("after: context-compaction inspect of the compacted log"),
    formatInspect(r.after),
    rule("kept in a store: the same conversation, a turn per request"),
    formatStoreDemo(r.stored),
  ].join("\n");
}
