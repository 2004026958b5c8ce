// Type-checked by `tsc --noEmit -p tests/types`: conversations in stores, as a TypeScript user
// writes them (every store's entry, Session.open, a Compactor and the middleware with a store).
import { Compactor, Session, compactionMiddleware, memoryStore, type CommitResult, type ConversationStore, type StoredSession } from "context-compaction";
import { sqliteStore } from "context-compaction/sqlite";
import { postgresStore } from "context-compaction/postgres";
import { redisStore } from "context-compaction/redis";
import { fileStore } from "context-compaction/file";
import { indexedDBStore } from "context-compaction/indexeddb";

interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}
const summarize = async (req: { prompt: string }) => req.prompt.slice(0, 100);

export async function stores(): Promise<ConversationStore[]> {
  return [
    memoryStore(),
    sqliteStore({ path: "chats.db" }),
    postgresStore({ connectionString: "postgres://localhost/chats" }),
    redisStore({ url: "redis://127.0.0.1:6379" }),
    fileStore({ dir: "./chats" }),
    indexedDBStore({ name: "chats" }),
  ];
}

export async function chat(store: ConversationStore, id: string, text: string): Promise<ChatMessage[]> {
  const session: StoredSession<ChatMessage> = await Session.open<ChatMessage>(store, id, {
    contextWindow: 200_000,
    format: "openai",
    summarize,
    leaseMs: 60_000,
  });
  session.append({ role: "user", content: text });
  const { messages } = await session.prepare();
  session.append({ role: "assistant", content: "ok" });
  const committed: CommitResult = await session.commit();
  const version: number = committed.version + session.storeVersion;
  const holder: string | null = await session.compactionHolder();
  void version;
  void holder;
  // @ts-expect-error: a store option belongs to Session.open, not to a Session's options
  new Session<ChatMessage>({ contextWindow: 1000, summarize, store });
  return messages;
}

export async function stateless(store: ConversationStore, history: ChatMessage[]): Promise<ChatMessage[]> {
  const compactor = new Compactor<ChatMessage>({ contextWindow: 200_000, summarize, store, conversationId: "chat-1" });
  const middleware = compactionMiddleware({
    contextWindow: 200_000,
    summarize,
    store,
    conversationId: (params) => {
      const chatId = params.providerOptions?.["app"]?.["chatId"];
      return typeof chatId === "string" ? chatId : undefined;
    },
  });
  void middleware;
  return compactor.maybeCompact(history);
}
