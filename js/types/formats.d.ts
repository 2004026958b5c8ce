// The message formats the package reads and writes, and the free functions that take or return
// them (generic over the caller's message type): src/wasm/functions.rs.
import type { MessageFormat, TrimOptions } from "./options.js";
import type { RepairResult, Retention, SessionCompaction, Violation } from "./results.js";

/** A JSON value (as the AI SDK declares it). */
export type JSONValue = null | string | number | boolean | JSONValue[] | { [key: string]: JSONValue | undefined };
/** Provider-specific options of the AI SDK (`providerOptions`). */
export type ProviderOptions = Record<string, { [key: string]: JSONValue | undefined }>;
/** Inline data of the AI SDK: base64 text, bytes, or a URL. */
export type DataContent = string | Uint8Array | ArrayBuffer | URL;

/** AI SDK text. */
export interface AiSdkTextPart { type: "text"; text: string; providerOptions?: ProviderOptions }
/** An AI SDK image. */
export interface AiSdkImagePart { type: "image"; image: DataContent; mediaType?: string; providerOptions?: ProviderOptions }
/** An AI SDK file (an image when `mediaType` is `image/*`). */
export interface AiSdkFilePart { type: "file"; data: DataContent; mediaType: string; filename?: string; providerOptions?: ProviderOptions }
/** AI SDK reasoning. */
export interface AiSdkReasoningPart { type: "reasoning"; text: string; providerOptions?: ProviderOptions }
/** An AI SDK tool call. */
export interface AiSdkToolCallPart { type: "tool-call"; toolCallId: string; toolName: string; input: unknown; providerExecuted?: boolean; providerOptions?: ProviderOptions }
/** An AI SDK tool result. */
export interface AiSdkToolResultPart { type: "tool-result"; toolCallId: string; toolName: string; output: AiSdkToolOutput; providerOptions?: ProviderOptions }
/** A part of an AI SDK message. */
export type AiSdkPart = AiSdkTextPart | AiSdkImagePart | AiSdkFilePart | AiSdkReasoningPart | AiSdkToolCallPart | AiSdkToolResultPart;
/** The output of an AI SDK tool result. */
export type AiSdkToolOutput =
  | { type: "text" | "error-text"; value: string }
  | { type: "json" | "error-json"; value: JSONValue }
  | { type: "execution-denied"; reason?: string }
  | { type: "content"; value: Array<{ type: "text"; text: string } | { type: "media"; data: string; mediaType: string } | { type: "file-url"; url: string }> };
/** An AI SDK message (`ModelMessage`, and the provider prompt `LanguageModelV3Message`). */
export type AiSdkMessage =
  | { role: "system"; content: string; providerOptions?: ProviderOptions }
  | { role: "user"; content: string | Array<AiSdkTextPart | AiSdkImagePart | AiSdkFilePart>; providerOptions?: ProviderOptions }
  | { role: "assistant"; content: string | Array<AiSdkTextPart | AiSdkFilePart | AiSdkReasoningPart | AiSdkToolCallPart | AiSdkToolResultPart>; providerOptions?: ProviderOptions }
  | { role: "tool"; content: AiSdkToolResultPart[]; providerOptions?: ProviderOptions };

/** OpenAI text. */
export interface OpenAITextPart { type: "text"; text: string }
/** A content part of an OpenAI user message. */
export type OpenAIUserPart =
  | OpenAITextPart
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } }
  | { type: "input_audio"; input_audio: { data: string; format: "wav" | "mp3" } }
  | { type: "file"; file: { file_data?: string; file_id?: string; filename?: string } };
/** A tool call of an OpenAI assistant message. */
export interface OpenAIToolCall { id: string; type: "function"; function: { name: string; arguments: string } }
/** An OpenAI chat-completions message (`ChatCompletionMessageParam`). */
export type OpenAIMessage =
  | { role: "system"; content: string | OpenAITextPart[]; name?: string }
  | { role: "developer"; content: string | OpenAITextPart[]; name?: string }
  | { role: "user"; content: string | OpenAIUserPart[]; name?: string }
  | { role: "assistant"; content?: string | Array<OpenAITextPart | { type: "refusal"; refusal: string }> | null; tool_calls?: OpenAIToolCall[]; refusal?: string | null; name?: string }
  | { role: "tool"; tool_call_id: string; content: string | OpenAITextPart[] };

/** Anthropic's prompt-cache marker. */
export interface AnthropicCacheControl { type: "ephemeral"; ttl?: "5m" | "1h" }
/** Anthropic text. */
export interface AnthropicTextBlock { type: "text"; text: string; cache_control?: AnthropicCacheControl | null }
/** An Anthropic image. */
export interface AnthropicImageBlock {
  type: "image";
  source:
    | { type: "base64"; media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"; data: string }
    | { type: "url"; url: string }
    | { type: "file"; file_id: string };
  cache_control?: AnthropicCacheControl | null;
}
/** An Anthropic document (PDF or text). */
export interface AnthropicDocumentBlock {
  type: "document";
  source:
    | { type: "base64"; media_type: "application/pdf"; data: string }
    | { type: "text"; media_type: "text/plain"; data: string }
    | { type: "url"; url: string }
    | { type: "file"; file_id: string };
  title?: string | null;
  cache_control?: AnthropicCacheControl | null;
}
/** A content block of an Anthropic message. */
export type AnthropicBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown; cache_control?: AnthropicCacheControl | null }
  | { type: "tool_result"; tool_use_id: string; content?: string | Array<AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock>; is_error?: boolean; cache_control?: AnthropicCacheControl | null };
/** An Anthropic Messages API message (`MessageParam`); `system` is accepted for convenience. */
export type AnthropicMessage =
  | { role: "user"; content: string | AnthropicBlock[] }
  | { role: "assistant"; content: string | AnthropicBlock[] }
  | { role: "system"; content: string | AnthropicTextBlock[] };

/** A content block of a pi message. */
export type PiBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "thinking"; thinking: string }
  | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> };
/** A pi agent message (its session files' `message` entries). */
export type PiMessage =
  | { role: "user" | "assistant"; content: string | PiBlock[]; timestamp?: number; [key: string]: unknown }
  | { role: "toolResult"; toolCallId: string; toolName: string; content: PiBlock[]; isError: boolean; details?: unknown; timestamp?: number }
  | { role: "bashExecution"; command: string; output: string; exitCode?: number | null; timestamp?: number; [key: string]: unknown }
  | { role: "compactionSummary" | "branchSummary"; summary: string; timestamp?: number; [key: string]: unknown };

/** A content block of a LangChain message (its standard blocks, or a provider's own). */
export type LangChainBlock =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: string | { url: string; detail?: string } }
  | { type: "image" | "file"; url?: string; data?: string; mimeType?: string; [key: string]: unknown }
  | { type: "reasoning"; reasoning: string }
  | { type: string; [key: string]: unknown };
/** A LangChain tool call (`AIMessage.tool_calls`). */
export interface LangChainToolCall { id: string; name: string; args: Record<string, unknown>; type?: "tool_call" }
/**
 * A LangChain.js message in the plain form LangChain builds messages from (`{ type, content, ... }`,
 * what `coerceMessageLikeToMessage` takes). `BaseMessage` instances and their serialized form are
 * accepted wherever messages are; `context-compaction/langchain` gives instances back.
 */
export type LangChainMessage =
  | { type: "human" | "user"; content: string | LangChainBlock[]; id?: string; name?: string; additional_kwargs?: Record<string, unknown> }
  | { type: "ai" | "assistant"; content: string | LangChainBlock[]; tool_calls?: LangChainToolCall[]; id?: string; name?: string; additional_kwargs?: Record<string, unknown>; response_metadata?: Record<string, unknown> }
  | { type: "system" | "developer"; content: string | LangChainBlock[]; id?: string; name?: string }
  | { type: "tool"; content: string | LangChainBlock[]; tool_call_id: string; status?: "success" | "error"; name?: string; id?: string };

/** The message type of each format name. */
export interface FormatMessages {
  "ai-sdk": AiSdkMessage;
  openai: OpenAIMessage;
  anthropic: AnthropicMessage;
  pi: PiMessage;
  langchain: LangChainMessage;
}
/** A format name other than "auto". */
export type FormatName = keyof FormatMessages;

/** A pi or Claude Code session file, imported (Claude Code messages are in the Anthropic format). */
export type ImportedSession =
  | ImportedSessionOf<"pi", PiMessage>
  | ImportedSessionOf<"anthropic", AnthropicMessage>;
/** A session file imported in one format. */
export interface ImportedSessionOf<F extends FormatName, M> {
  format: F;
  /** What the agent would send now: the latest recorded summary and what follows it. */
  messages: M[];
  /** Every message of the file, including what compactions summarized. */
  history: M[];
  compactions: SessionCompaction[];
  /** What reading left out, each naming its line: an incomplete last line (a file still being written). */
  warnings: string[];
}
/** How `importSession` reads a file. */
export interface ImportSessionOptions {
  /** Refuse an incomplete last line (`INVALID_INPUT` naming it) instead of leaving it out with a warning. Default `false`. */
  strict?: boolean;
}

/**
 * Imports a pi or Claude Code session file (JSONL text). `messages` is what the agent would send
 * now (the latest recorded summary and what follows it), `history` every message of the file.
 * Throws `INVALID_INPUT` naming the line for a malformed file or a file of the other agent; an
 * incomplete last line is left out with a warning unless `strict`.
 */
export function importSession(text: string, kind: "pi", options?: ImportSessionOptions): ImportedSessionOf<"pi", PiMessage>;
export function importSession(text: string, kind: "claude-code", options?: ImportSessionOptions): ImportedSessionOf<"anthropic", AnthropicMessage>;
export function importSession(text: string, kind: "pi" | "claude-code", options?: ImportSessionOptions): ImportedSession;

/**
 * Checks tool pairing and structure: orphaned results, results before their call, unanswered
 * calls, duplicate ids, misplaced summaries, empty messages. `format` defaults to detection.
 */
export function validateMessages<M extends object>(messages: readonly M[], format?: MessageFormat | null): Violation[];
/** What `summary` keeps of the facts of `messages` (files, commands, errors, user requests, pending tasks). */
export function factRetention<M extends object>(messages: readonly M[], summary: string, format?: MessageFormat | null): Retention;

/**
 * A repaired copy: orphaned results removed, interrupted calls answered with an error result,
 * duplicate ids renamed. A valid history comes back deep-equal, binary content as your objects.
 */
export function repairMessages<M extends object>(messages: readonly M[], format?: MessageFormat | null): RepairResult<M>;

/**
 * Writes messages of one format in another: `importSession` output into an AI SDK loop, an OpenAI
 * history into an Anthropic request. Tool calls and results, reasoning, images and files (inline
 * data included) are carried over; a tool result's name comes from its call; tool results in a
 * user message (Anthropic) become tool messages. Blocks of a kind only the source format knows are
 * left out. A tool call that a later message follows without its result (an aborted turn) gets a
 * synthetic error result, as pi does; the calls of the last assistant message stay pending.
 * Within one format, the messages come back as they were (with those results).
 *
 * @param options.from The messages' format (default: detected).
 * @param options.to The format to write.
 * @param options.unansweredCalls `"answer"` (default): the synthetic error results; `"keep"`: none.
 * @returns The messages; the array's non-enumerable `answeredCalls` lists the ids of the calls answered.
 */
export function convertMessages<T extends FormatName>(messages: readonly object[], options: { from?: MessageFormat; to: T; unansweredCalls?: "answer" | "keep" }): FormatMessages[T][] & { readonly answeredCalls: string[] };

/**
 * LangChain's `trimMessages` semantics without a model call: keeps the last (or first) messages
 * within `maxTokens`, never a tool result without its call. Kept messages are your own objects.
 */
export function trimMessages<M extends object>(messages: readonly M[], options: TrimOptions): M[];
