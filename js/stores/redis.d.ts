// Types of js/stores/redis.mjs: the store contract on Redis through ioredis.
import type { ConversationStore } from "./contract.js";

/**
 * What the store needs of a Redis client: an ioredis `Redis` or `Cluster` instance fits. The store
 * passes the keys and arguments of a script as one array after `numkeys`, which ioredis flattens
 * into the command (so that a batch of many lines is no call with as many arguments).
 */
export interface RedisClientLike {
  /** EVALSHA; rejects with a NOSCRIPT error when the server has not cached the script. */
  evalsha(sha1: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
  /** EVAL. */
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
  /** GET: the string at `key`, or `null`. */
  get(key: string): Promise<string | null>;
}

/** Options of {@link redisStore}: a client, or a URL to open one with. */
export interface RedisStoreOptions {
  /**
   * An ioredis client the store uses. The store leaves it open: `close()` does not quit it.
   * Either this or `url`.
   */
  client?: RedisClientLike;
  /**
   * A Redis URL (`redis://host:6379/0`, `rediss://` for TLS): the store opens its own ioredis client
   * (loading the `ioredis` package, which must be installed) and `close()` quits it.
   */
  url?: string;
  /**
   * The start of every key (default `"cc:"`). A conversation's keys are
   * `<prefix>{<conversationId>}:<part>`: the braces make a hash tag, so that on a Redis Cluster all
   * of a conversation's keys share one slot. The prefix itself should hold no `{`.
   */
  prefix?: string;
}

/**
 * A conversation store on Redis (standalone or Cluster) through ioredis. Every operation
 * is one Lua script: appends commit whole or not at all, check the version and the entry ids before
 * writing, and a retried append (ioredis resends unanswered commands after a reconnect) is refused
 * as a version conflict instead of being applied twice. Loads read only the live lines.
 */
export declare function redisStore(options: RedisStoreOptions): ConversationStore;
