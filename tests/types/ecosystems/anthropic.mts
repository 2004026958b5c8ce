// Type-checked: the Anthropic SDK user's view, without a single cast.
import type { MessageParam, Usage } from "@anthropic-ai/sdk/resources/messages";
import {
  Compactor,
  Session,
  convertMessages,
  importSession,
  repairMessages,
  trimMessages,
  type AnthropicMessage,
} from "context-compaction";

const history: MessageParam[] = [
  { role: "user", content: "List the files." },
  { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "ls", input: {} }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "a.ts b.ts" }] },
];
const compactor = new Compactor<MessageParam>({ model: "claude-sonnet-4-5", format: "anthropic", summarize: (r) => r.prompt });

declare const usage: Usage;
compactor.check(history, { usage });

const next: MessageParam[] = await compactor.maybeCompact(history);
const trimmed: MessageParam[] = trimMessages(history, { maxTokens: 500 });
const repaired: MessageParam[] = repairMessages(history).messages;

// A Claude Code session file reads as Anthropic messages the SDK accepts.
declare const fileText: string;
const claude = importSession(fileText, "claude-code");
const fromFile: MessageParam[] = claude.messages;
const converted: AnthropicMessage[] = convertMessages(next, { to: "anthropic" });
const sendable: MessageParam[] = converted;

const session = new Session<MessageParam>({ model: "claude-sonnet-4-5", format: "anthropic", summarize: (r) => r.prompt });
session.append(history);
session.recordUsage(usage);
const rendered: MessageParam[] = (await session.prepare()).messages;

export { next, trimmed, repaired, fromFile, sendable, rendered };
