// Argument checks every store shares, so that a bad call fails the same way on each engine
// (a TypeError naming the argument) before anything is written.

/** A conversation id: a non-empty string of at most 512 characters. */
export function checkId(conversationId) {
  if (typeof conversationId !== "string" || conversationId.length === 0 || conversationId.length > 512) {
    throw new TypeError("conversationId must be a non-empty string of at most 512 characters");
  }
}

/** An append's batch and expected version. */
export function checkAppend(batch, expectedVersion) {
  if (!Number.isSafeInteger(expectedVersion) || expectedVersion < 0) {
    throw new TypeError("expectedVersion must be a non-negative integer");
  }
  if (batch === null || typeof batch !== "object" || !Array.isArray(batch.lines)) {
    throw new TypeError("append: batch.lines must be an array of { id, line }");
  }
  const seen = new Set();
  for (const [i, l] of batch.lines.entries()) {
    if (l === null || typeof l !== "object" || typeof l.id !== "string" || l.id === "" || typeof l.line !== "string") {
      throw new TypeError(`append: batch.lines[${i}] must be { id: string, line: string }`);
    }
    if (l.line.includes("\n")) throw new TypeError(`append: batch.lines[${i}].line holds a newline`);
    if (seen.has(l.id)) throw new TypeError(`append: batch.lines[${i}].id "${l.id}" appears twice`);
    seen.add(l.id);
  }
  if (batch.header !== undefined && (typeof batch.header !== "string" || batch.header.includes("\n"))) {
    throw new TypeError("append: batch.header must be one line");
  }
  const live = batch.live;
  if (live !== undefined) {
    if (live === null || typeof live !== "object" || !(live.from === null || typeof live.from === "string") || !Array.isArray(live.carry) || !live.carry.every((c) => typeof c === "string")) {
      throw new TypeError("append: batch.live must be { from: string | null, carry: string[] }");
    }
  }
}

/** A lease's holder and time to live. */
export function checkLease(holder, ttlMs) {
  if (typeof holder !== "string" || holder === "") throw new TypeError("holder must be a non-empty string");
  if (!Number.isFinite(ttlMs) || ttlMs <= 0 || ttlMs > 2 ** 31 - 1) throw new TypeError("ttlMs must be a positive number of milliseconds");
}
