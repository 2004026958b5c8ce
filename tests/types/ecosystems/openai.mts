// Type-checked: the OpenAI SDK user's view, without a single cast.
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import {
  Compactor,
  Session,
  convertMessages,
  repairMessages,
  trimMessages,
  type CompactResult,
  type OpenAIMessage,
} from "context-compaction";

const history: ChatCompletionMessageParam[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "List the files." },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] },
  { role: "tool", tool_call_id: "c1", content: "a.ts b.ts" },
];
const compactor = new Compactor<ChatCompletionMessageParam>({ model: "gpt-4o", format: "openai", summarize: (r) => r.prompt });

// The SDK's usage object as it comes.
declare const usage: CompletionUsage;
compactor.check(history, { usage });

const next: ChatCompletionMessageParam[] = await compactor.maybeCompact(history);
const result: CompactResult<ChatCompletionMessageParam> = await compactor.compact(history);
const trimmed: ChatCompletionMessageParam[] = trimMessages(history, { maxTokens: 500 });
const repaired: ChatCompletionMessageParam[] = repairMessages(history).messages;

// Converted messages go to the SDK as they are.
declare const anthropicHistory: readonly object[];
const converted: OpenAIMessage[] = convertMessages(anthropicHistory, { from: "anthropic", to: "openai" });
const sendable: ChatCompletionMessageParam[] = converted;
// The README's own message type takes converted messages; the calls answered are listed.
type ChatMessage = { role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string };
const readmeTyped: ChatMessage[] = convertMessages(anthropicHistory, { to: "openai", unansweredCalls: "answer" });
const answeredCalls: readonly string[] = convertMessages(anthropicHistory, { to: "openai" }).answeredCalls;

const session = new Session<ChatCompletionMessageParam>({ model: "gpt-4o", format: "openai", summarize: (r) => r.prompt });
session.append(history);
session.recordUsage(usage);
const rendered: ChatCompletionMessageParam[] = session.render().messages;

export { next, result, trimmed, repaired, sendable, rendered, readmeTyped, answeredCalls };
