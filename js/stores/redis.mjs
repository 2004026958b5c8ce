// redisStore: the store contract on Redis through ioredis (an optional peer dependency, loaded only
// when the store is given a URL). Each conversation is five keys sharing one hash tag, so that on a
// Redis Cluster they live in one slot and one Lua script can touch them all:
//   <prefix>{<id>}:header  the header line (its presence: the conversation exists)
//   <prefix>{<id>}:lines   the entry lines, a list (RPUSH); its length is the version
//   <prefix>{<id>}:ids     a hash entry id -> 0-based position in the list
//   <prefix>{<id>}:live    the live set as positions: {"from":N|null,"carry":[N,...]}
//   <prefix>{<id>}:lease   the compaction lease's holder, with a TTL
// Every operation is one Lua script (EVALSHA, EVAL when the server does not know it yet), which Redis
// runs atomically: an append commits whole or not at all, and a load never sees half of one.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { checkAppend, checkId, checkLease } from "./checks.mjs";

/** A Lua script with its SHA1, for EVALSHA. */
const script = (lua) => ({ lua, sha: createHash("sha1").update(lua).digest("hex") });

// Errors the scripts raise for a bad call start with this tag; they become TypeErrors, as in the
// other stores.
const BAD_CALL = "CCBADCALL ";

// KEYS: header, lines, ids, live. ARGV: expected version, has header ("1"/"0"), header, live mode
// ("0" keep, "1" from the first line, "2" from the entry ARGV[5]), from id, line count n, then n
// (id, line) pairs, then the carried ids. Returns {1, version} or {0, current version}.
//
// Everything is checked before the first write: a script that fails after writing would leave its
// writes in place (Redis scripts do not roll back).
//
// The version check also makes a replay harmless. ioredis resends the commands that were sent but
// not answered when a connection drops and it reconnects (autoResendUnfulfilledCommands, on by
// default), and an append whose reply was lost may have been applied already. Its replay finds the
// list longer than its expected version and returns a conflict, so a batch is never applied twice;
// the caller then sees `ok: false` for a batch that did commit, and reloading shows its lines.
const APPEND = script(`
local version = redis.call('LLEN', KEYS[2])
if version ~= tonumber(ARGV[1]) then return {0, version} end
local exists = redis.call('EXISTS', KEYS[1]) == 1
local n = tonumber(ARGV[6])
for i = 1, n do
  local id = ARGV[5 + 2 * i]
  if redis.call('HEXISTS', KEYS[3], id) == 1 then
    return redis.error_reply('${BAD_CALL}append: entry id "' .. id .. '" is already in the conversation')
  end
end
if not exists then
  if ARGV[2] ~= '1' then return redis.error_reply('${BAD_CALL}append: a new conversation needs batch.header') end
  redis.call('SET', KEYS[1], ARGV[3])
end
for i = 1, n do
  redis.call('RPUSH', KEYS[2], ARGV[6 + 2 * i])
  redis.call('HSET', KEYS[3], ARGV[5 + 2 * i], version + i - 1)
end
if ARGV[4] ~= '0' then
  local from = 'null'
  if ARGV[4] == '2' then
    local seq = redis.call('HGET', KEYS[3], ARGV[5])
    if seq then from = seq end
  end
  local carry = {}
  for i = 7 + 2 * n, #ARGV do
    local seq = redis.call('HGET', KEYS[3], ARGV[i])
    if seq then carry[#carry + 1] = seq end
  end
  redis.call('SET', KEYS[4], '{"from":' .. from .. ',"carry":[' .. table.concat(carry, ',') .. ']}')
end
return {1, version + n}
`);

// KEYS: header, lines, live. Returns nil, or {header, version, line...}: the carried lines before
// `from` in log order, then the lines from `from` on (read from the list's tail).
const LOAD = script(`
local header = redis.call('GET', KEYS[1])
if not header then return false end
local version = redis.call('LLEN', KEYS[2])
local from, carry = 0, {}
local live = redis.call('GET', KEYS[3])
if live then
  local l = cjson.decode(live)
  if l.from ~= cjson.null then from = l.from end
  for _, seq in ipairs(l.carry) do
    if seq < from then carry[#carry + 1] = seq end
  end
  table.sort(carry)
end
local out = {header, version}
for _, seq in ipairs(carry) do out[#out + 1] = redis.call('LINDEX', KEYS[2], seq) end
if from < version then
  for _, line in ipairs(redis.call('LRANGE', KEYS[2], from - version, -1)) do out[#out + 1] = line end
end
return out
`);

// KEYS: header, lines. ARGV: the first position to return. Returns nil or {header, version, line...}.
const READ = script(`
local header = redis.call('GET', KEYS[1])
if not header then return false end
local out = {header, redis.call('LLEN', KEYS[2])}
for _, line in ipairs(redis.call('LRANGE', KEYS[2], ARGV[1], -1)) do out[#out + 1] = line end
return out
`);

// KEYS: lease. ARGV: holder, ttl in ms. Takes a free or expired lease, or renews the holder's own.
const ACQUIRE = script(`
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`);

// KEYS: lease. ARGV: holder. Deletes the lease only when `holder` holds it.
const RELEASE = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`);

/**
 * A store on Redis.
 * @param {{ client?: import("ioredis").Redis, url?: string, prefix?: string }} options `client`: an
 *   ioredis client the store uses and leaves open; or `url`: the store opens its own client (and
 *   `close` quits it). `prefix`: the start of every key (default "cc:").
 */
export function redisStore(options = {}) {
  const { prefix = "cc:" } = options;
  if (typeof prefix !== "string") throw new TypeError("redisStore: prefix must be a string");
  let client = options.client;
  const owned = !client;
  if (!client) {
    if (typeof options.url !== "string") throw new TypeError("redisStore: pass { client } (an ioredis client) or { url }");
    let Redis;
    try {
      Redis = createRequire(import.meta.url)("ioredis");
    } catch (error) {
      throw new Error("redisStore: the redis store needs the ioredis package (npm install ioredis)", { cause: error });
    }
    client = new (Redis.default ?? Redis)(options.url);
    // A lost connection rejects the commands it fails, and ioredis reconnects by itself; without a
    // listener it would also print every "error" event.
    client.on("error", () => {});
  }

  const key = (conversationId, part) => `${prefix}{${conversationId}}:${part}`;

  /** Runs a script by its SHA1, sending its text when the server does not have it cached. */
  async function run({ lua, sha }, keys, args) {
    try {
      // One array after numkeys (ioredis flattens it): a batch of many lines is no call with as
      // many arguments.
      return await client.evalsha(sha, keys.length, [...keys, ...args]);
    } catch (error) {
      if (!String(error?.message).startsWith("NOSCRIPT")) throw badCall(error);
      return client.eval(lua, keys.length, [...keys, ...args]).catch((e) => Promise.reject(badCall(e)));
    }
  }

  /** A script's bad-call error as a TypeError; any other error unchanged. */
  function badCall(error) {
    const message = String(error?.message ?? "");
    const at = message.indexOf(BAD_CALL);
    return at === -1 ? error : new TypeError(message.slice(at + BAD_CALL.length));
  }

  /** `{header, version, ...lines}` from a script's reply as a StoredLog. */
  const log = (reply) => (reply === null ? null : { header: reply[0], lines: reply.slice(2), version: Number(reply[1]) });

  return {
    async load(conversationId) {
      checkId(conversationId);
      const keys = ["header", "lines", "live"].map((part) => key(conversationId, part));
      return log(await run(LOAD, keys, []));
    },
    async append(conversationId, batch, expectedVersion) {
      checkId(conversationId);
      checkAppend(batch, expectedVersion);
      const hasHeader = typeof batch.header === "string";
      const live = batch.live;
      const args = [
        expectedVersion,
        hasHeader ? "1" : "0",
        hasHeader ? batch.header : "",
        live ? (live.from === null ? "1" : "2") : "0",
        live?.from ?? "",
        batch.lines.length,
      ];
      for (const { id, line } of batch.lines) args.push(id, line);
      if (live) args.push(...live.carry);
      const keys = ["header", "lines", "ids", "live"].map((part) => key(conversationId, part));
      const [ok, version] = await run(APPEND, keys, args);
      return { ok: ok === 1, version: Number(version) };
    },
    async read(conversationId, fromVersion) {
      checkId(conversationId);
      // As the memory store's slice: a negative or missing start reads from the first line.
      const start = Number.isFinite(fromVersion) ? Math.max(0, Math.trunc(fromVersion)) : fromVersion > 0 ? Number.MAX_SAFE_INTEGER : 0;
      return log(await run(READ, [key(conversationId, "header"), key(conversationId, "lines")], [start]));
    },
    async acquireLease(conversationId, holder, ttlMs) {
      checkId(conversationId);
      checkLease(holder, ttlMs);
      return (await run(ACQUIRE, [key(conversationId, "lease")], [holder, Math.ceil(ttlMs)])) === 1;
    },
    async releaseLease(conversationId, holder) {
      checkId(conversationId);
      await run(RELEASE, [key(conversationId, "lease")], [holder]);
    },
    async leaseHolder(conversationId) {
      checkId(conversationId);
      return (await client.get(key(conversationId, "lease"))) ?? null;
    },
    async close() {
      if (owned) await client.quit().catch(() => client.disconnect());
    },
  };
}
