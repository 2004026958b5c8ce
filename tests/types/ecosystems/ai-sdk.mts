// Type-checked: the AI SDK user's view, without a single cast. The middleware plugs into
// `wrapLanguageModel`; the SDK's messages and usage objects go straight into the Compactor.
import { generateText, wrapLanguageModel, type LanguageModelUsage, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { LanguageModelV3Usage } from "@ai-sdk/provider";
import {
  Compactor,
  compactionMiddleware,
  type CheckResult,
  type CompactResult,
  type TokenUsage,
} from "context-compaction";

const compactor = new Compactor<ModelMessage>({
  model: "gpt-4o",
  summarize: async ({ prompt, messages }) => `${prompt.length} ${messages.length}`,
});

// The middleware takes a Compactor or its options.
const model = wrapLanguageModel({ model: new MockLanguageModelV3(), middleware: compactionMiddleware(compactor) });
const other = wrapLanguageModel({
  model: new MockLanguageModelV3(),
  middleware: [compactionMiddleware({ contextWindow: 128_000, summarize: () => "summary" }, { recoverOverflow: false })],
});

const history: ModelMessage[] = [{ role: "user", content: "hi" }];
const result = await generateText({ model, messages: history });

// The SDK's usage objects, as they come.
const usage: LanguageModelUsage = result.usage;
const checked: CheckResult = compactor.check(history, { usage });
const providerUsage: LanguageModelV3Usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 2, text: 2, reasoning: undefined },
};
const asUsage: TokenUsage = providerUsage;

// Results keep the SDK's message type.
const compacted: CompactResult<ModelMessage> = await compactor.compact([...history, ...result.response.messages]);
const next: ModelMessage[] = await compactor.maybeCompact(compacted.messages);

export { other, checked, asUsage, next };

// A session file, imported and converted, is an AI SDK history.
import { convertMessages, importSession, repairMessages, trimMessages, validateMessages, type PiMessage } from "context-compaction";
declare const fileText: string;
const imported = importSession(fileText, "pi");
const piHistory: PiMessage[] = imported.history;
const fromFile: ModelMessage[] = repairMessages(convertMessages(piHistory, { to: "ai-sdk" })).messages;
const trimmed: ModelMessage[] = trimMessages(history, { maxTokens: 1_000 });
const violations: number = validateMessages(fromFile).length;
export { fromFile, trimmed, violations };
