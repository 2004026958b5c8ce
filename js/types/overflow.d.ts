// Context-limit errors: `isContextOverflowError`, `describeContextOverflow` and
// `withOverflowRecovery` (src/wasm/overflow.rs).
/** A recognised context-limit error. */
export interface ContextOverflow {
  /** The provider the error is recognised as coming from, or null when it cannot be told. */
  provider: "openai" | "anthropic" | "google" | "bedrock" | "mistral" | "openrouter" | "llama.cpp" | null;
  /** The context window the provider reported, in tokens. */
  limit: number | null;
  /** The tokens the request needed, as reported. */
  requested: number | null;
}
/**
 * Sends `messages`; when that fails with a context-limit error ({@link isContextOverflowError}),
 * compacts them with `compact(messages, error)` and sends the result once more. Any other error,
 * and any error of the second attempt, is thrown as it is: it never loops.
 *
 * @example
 * const result = await withOverflowRecovery(
 *   (messages) => generateText({ model, messages }),
 *   history,
 *   async (messages) => (await compactor.compact(messages, { force: true })).messages,
 * );
 */
export function withOverflowRecovery<M, T>(
  send: (messages: M[]) => T | Promise<T>,
  messages: M[],
  compact: (messages: M[], error: unknown) => M[] | Promise<M[]>,
): Promise<T>;
/**
 * True when `error` is a provider's "the prompt does not fit the context window" error (OpenAI
 * and compatible servers, Azure, Anthropic, Google, AWS Bedrock, Mistral, OpenRouter, llama.cpp),
 * thrown directly or wrapped by the AI SDK's `APICallError`. Rate-limit and auth errors never are.
 */
export function isContextOverflowError(error: unknown): boolean;
/**
 * `{ provider, limit, requested }` of a context-limit error (numbers when the provider said
 * them), or `null` when `error` is not one.
 */
export function describeContextOverflow(error: unknown): ContextOverflow | null;
