// Compactor options from the command line: window (--model / --window, default 200000), preset,
// tokenizer, and the messages' format.
import { Compactor } from "context-compaction";

export const DEFAULT_WINDOW = 200_000;

/** The options every command builds its Compactor or Session from. */
export function compactorOptions(values, format) {
  const options = { summarize: "extractive" };
  if (values.preset !== undefined) options.preset = values.preset;
  if (values.model !== undefined) options.model = values.model;
  if (values.window !== undefined) options.contextWindow = values.window;
  else if (values.model === undefined) options.contextWindow = DEFAULT_WINDOW;
  if (values.tokenizer !== undefined) options.tokenizer = values.tokenizer;
  if (format) options.format = format;
  return options;
}

/**
 * The context window the package resolves for these options: with only a model, its window from
 * the package's model table (read back as the threshold of a full-window trigger).
 */
export function resolvedWindow(options) {
  if (options.contextWindow !== undefined) return options.contextWindow;
  const probe = new Compactor({ model: options.model, reserveTokens: 0, trigger: { fraction: 1 }, summarize: "extractive" });
  try {
    return probe.check([]).threshold;
  } finally {
    probe.free();
  }
}

/** `{ contextWindow, model, preset, tokenizer }` as reported. */
export function describeSettings(values, options) {
  return {
    contextWindow: resolvedWindow(options),
    model: values.model ?? null,
    preset: values.preset ?? null,
    tokenizer: values.tokenizer ?? null,
  };
}
