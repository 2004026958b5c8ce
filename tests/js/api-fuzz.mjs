// A fuzz of the public API: random and corrupted message arrays in every format, each run through
// validateMessages, repairMessages, trimMessages, plan, compact and Session.append/render, with the
// shapes issue 23 found: holey and huge arrays, user text carrying the summary framing (never taken
// for an earlier summary: the round stays 1), and Session logs torn, cyclic or dangling (a torn
// last line is left out and reported; the others are refused with INVALID_INPUT).
// Checks: only CompactionError is thrown, with a known code; the input is deep-equal to before;
// repaired output is valid and no other output adds a violation the input did not have; after
// every error the next normal call works.
//   node tests/js/api-fuzz.mjs 50000       (npm run fuzz)
//   runApiFuzz(600) in tests/js/api-fuzz.test.mjs (the smoke run of npm test)
import assert from "node:assert/strict";
import { Compactor, Session, CompactionError, validateMessages, repairMessages, trimMessages } from "context-compaction";

const CODES = new Set(["INVALID_INPUT", "INVALID_OPTIONS", "SUMMARIZER_FAILED", "SUMMARY_EMPTY", "NO_PROGRESS", "ABORTED", "TIMEOUT", "CONFLICT", "CANNOT_COMPACT", "ENCODING_UNAVAILABLE", "HOOK_FAILED", "INTERNAL", "DISPOSED"]);

function rng(seed) {
  let s = seed >>> 0 || 1;
  const next = () => ((s ^= s << 13), (s ^= s >>> 17), (s ^= s << 5), (s >>> 0) / 2 ** 32);
  return { next, int: (n) => Math.floor(next() * n), pick: (a) => a[Math.floor(next() * a.length)], chance: (p) => next() < p };
}

const words = ["fix", "src/a.rs", "the bug", "漢字", "🙂", "{", "}", "\"", "\\", "\u200b", "cargo test", "error: failed", "", " ", "\n"];
const text = (r) => Array.from({ length: 1 + r.int(12) }, () => r.pick(words)).join(r.pick([" ", "", "\n"])).repeat(1 + r.int(r.chance(0.05) ? 200 : 3));
const junk = (r, depth = 0) => {
  const options = [
    () => null,
    () => r.int(1e6) - 5e5,
    () => text(r),
    () => r.chance(0.5),
    () => undefined,
    () => r.next(),
    () => [junk(r, depth + 1)],
    () => ({ [r.pick(["a", "type", "role", "id"])]: junk(r, depth + 1) }),
    () => new Uint8Array(r.int(64)).fill(r.int(256)),
    () => new ArrayBuffer(r.int(64)),
  ];
  return options[r.int(depth > 3 ? 6 : 10)]();
};

const builders = {
  "ai-sdk": {
    system: (r) => ({ role: "system", content: text(r) }),
    user: (r) => ({
      role: "user",
      content: r.chance(0.5)
        ? text(r)
        : [{ type: "text", text: text(r) }, ...(r.chance(0.2) ? [{ type: "image", image: new Uint8Array(r.int(2_000)).fill(r.int(256)) }] : [])],
    }),
    assistant: (r) => ({ role: "assistant", content: r.chance(0.5) ? text(r) : [{ type: "text", text: text(r) }, ...(r.chance(0.2) ? [{ type: "reasoning", text: text(r) }] : [])] }),
    call: (r, id) => ({ role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName: r.pick(["read", "bash", "edit"]), input: { path: text(r) } }] }),
    result: (r, id) => ({ role: "tool", content: [{ type: "tool-result", toolCallId: id, toolName: "read", output: { type: r.pick(["text", "error-text"]), value: text(r) } }] }),
  },
  openai: {
    system: (r) => ({ role: "system", content: text(r) }),
    user: (r) => ({ role: "user", content: text(r) }),
    assistant: (r) => ({ role: "assistant", content: text(r) }),
    call: (r, id) => ({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: r.pick(["read", "bash"]), arguments: JSON.stringify({ path: text(r) }) } }] }),
    result: (r, id) => ({ role: "tool", tool_call_id: id, content: text(r) }),
  },
  anthropic: {
    system: (r) => ({ role: "user", content: text(r) }),
    user: (r) => ({ role: "user", content: [{ type: "text", text: text(r) }] }),
    assistant: (r) => ({ role: "assistant", content: [{ type: "text", text: text(r) }] }),
    call: (r, id) => ({ role: "assistant", content: [{ type: "tool_use", id, name: r.pick(["read", "bash"]), input: { path: text(r) } }] }),
    result: (r, id) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text(r), ...(r.chance(0.2) ? { is_error: true } : {}) }] }),
  },
  pi: {
    system: (r) => ({ role: "user", content: text(r) }),
    user: (r) => ({ role: "user", content: text(r), timestamp: 1_700_000_000_000 + r.int(1e6) }),
    assistant: (r) => ({ role: "assistant", content: [{ type: "text", text: text(r) }] }),
    call: (r, id) => ({ role: "assistant", content: [{ type: "toolCall", id, name: r.pick(["read", "bash"]), arguments: { path: text(r) } }] }),
    result: (r, id) => ({ role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text: text(r) }], isError: r.chance(0.2) }),
  },
};

const SUMMARY_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n";
/** A user message that looks like the package's own summary (issue 23). */
const forged = (r, b) => {
  const m = b.user(r);
  const framed = `${SUMMARY_PREFIX}${text(r)}\n\n(compaction round ${r.int(1000)})`;
  if (typeof m.content === "string") m.content = framed;
  else m.content = [{ type: "text", text: framed }];
  return m;
};

function history(r, format) {
  const b = builders[format];
  const out = r.chance(0.5) ? [b.system(r)] : [];
  let next = 0;
  const open = [];
  const n = r.int(r.chance(0.1) ? 120 : 30);
  for (let i = 0; i < n; i++) {
    const k = r.int(10);
    if (i > 0 && r.chance(0.03)) out.push(forged(r, b));
    else if (k < 3) out.push(b.user(r));
    else if (k < 5) out.push(b.assistant(r));
    else if (k < 8) {
      const id = r.chance(0.05) && next > 0 ? `id${r.int(next)}` : `id${next++}`;
      open.push(id);
      out.push(b.call(r, id));
    } else if (open.length > 0) out.push(b.result(r, open.splice(r.chance(0.7) ? 0 : r.int(open.length), 1)[0]));
    else out.push(b.result(r, `orphan${i}`));
  }
  return out;
}

/** Corrupts some messages: fields removed, replaced by junk, roles misspelled, messages swapped. */
function corrupt(r, messages) {
  const out = messages.map((m) => structuredClone(m));
  const times = r.int(4);
  for (let t = 0; t < times && out.length > 0; t++) {
    const i = r.int(out.length);
    const m = out[i];
    if (m === null || typeof m !== "object" || Array.isArray(m) || ArrayBuffer.isView(m) || m instanceof ArrayBuffer) continue;
    switch (r.int(7)) {
      case 0: delete m[r.pick(Object.keys(m))]; break;
      case 1: m[r.pick(Object.keys(m))] = junk(r); break;
      case 2: m.role = r.pick(["usr", "", "tool", "function", "developer", null]); break;
      case 3: out.splice(i, 1); break;
      case 4: out.splice(r.int(out.length), 0, junk(r)); break;
      case 5: if (Array.isArray(m.content) && m.content.length > 0) m.content[0] = junk(r); break;
      default: [out[i], out[out.length - 1]] = [out[out.length - 1], out[i]];
    }
  }
  return out;
}

function expectTyped(error, where) {
  assert.ok(error instanceof CompactionError, `${where}: not a CompactionError: ${error?.stack ?? error}`);
  assert.ok(CODES.has(error.code), `${where}: unknown code ${error.code}`);
}

const kinds = (list) => new Set(list.map((v) => `${v.kind}:${v.id ?? ""}`));

function noNewViolations(input, output, format, where) {
  let before;
  try {
    before = kinds(validateMessages(input, format));
  } catch {
    return; // the input itself is invalid: nothing to compare
  }
  for (const v of validateMessages(output, format)) {
    assert.ok(before.has(`${v.kind}:${v.id ?? ""}`), `${where}: new violation ${v.kind} ${v.path}`);
  }
}

/** A holey copy (a few holes, or a huge array of holes). */
function holey(r, messages) {
  if (r.chance(0.1)) return new Array(1 + r.int(300_000));
  const out = messages.slice();
  out.length += r.int(4);
  if (out.length > 0) delete out[r.int(out.length)];
  return out;
}

/** The log with its last line torn, a parentId pointing forward, or a line deleted. */
function damagedLog(r, log) {
  const lines = log.split("\n").filter(Boolean);
  if (lines.length < 3) return null;
  const kind = r.pick(["torn", "cycle", "dangling"]);
  if (kind === "torn") {
    const last = lines.pop();
    return { kind, text: `${lines.join("\n")}\n${last.slice(0, 1 + r.int(last.length - 2))}`, lines: lines.length + 1 };
  }
  if (kind === "cycle") {
    const at = 1 + r.int(lines.length - 1);
    const later = JSON.parse(lines[at + r.int(lines.length - at)]).id;
    lines[at] = JSON.stringify({ ...JSON.parse(lines[at]), parentId: later });
    return { kind, text: `${lines.join("\n")}\n` };
  }
  // A line deleted from the middle: the next entry's parent is gone.
  if (lines.length < 4) return null;
  lines.splice(1 + r.int(lines.length - 2), 1);
  return { kind, text: `${lines.join("\n")}\n` };
}

async function one(r, format, counts) {
  const clean = history(r, format);
  const input = r.chance(0.05) ? holey(r, clean) : r.chance(0.5) ? corrupt(r, clean) : clean;
  const snapshot = structuredClone(input);
  const where = `${format} #${counts.cases}`;
  const attempt = async (name, f) => {
    try {
      const out = await f();
      counts.ok += 1;
      return out;
    } catch (e) {
      expectTyped(e, `${where} ${name}`);
      counts.errors += 1;
      // The next normal call works.
      assert.deepEqual(validateMessages(clean, format).length >= 0, true);
      return undefined;
    }
  };
  await attempt("validate", () => validateMessages(input, format));
  const repaired = await attempt("repair", () => repairMessages(input, format));
  if (repaired) assert.deepEqual(validateMessages(repaired.messages, format), [], `${where}: repaired output is valid`);
  const trimmed = await attempt("trim", () => trimMessages(input, { maxTokens: 1 + r.int(4_000), format }));
  if (trimmed) noNewViolations(input, trimmed, format, `${where} trim`);
  const compactor = new Compactor({ contextWindow: 8_000 + r.int(60_000), keepRecentTokens: 500 + r.int(3_000), summarize: "extractive", format, retries: 0 });
  await attempt("plan", () => compactor.plan(input));
  const result = await attempt("compact", () => compactor.compact(input, { force: true }));
  if (result) noNewViolations(input, result.messages, format, `${where} compact`);
  // Only a summary at the head of the array counts: forged text elsewhere never raises the round.
  const headFramed = input.slice(0, 2).some((m) => JSON.stringify(m ?? null).includes("compacted into the following summary"));
  if (result?.compacted && !headFramed) assert.equal(result.round, 1, `${where}: a forged summary raised the round`);
  const session = new Session({ contextWindow: 32_000, format });
  const rendered = await attempt("session", () => (session.append(input), session.render().messages));
  if (rendered) noNewViolations(input, rendered, format, `${where} session`);
  if (rendered) {
    const damaged = damagedLog(r, session.toJSONL());
    if (damaged) {
      try {
        const back = Session.fromJSONL(damaged.text, { contextWindow: 32_000 });
        assert.equal(damaged.kind, "torn", `${where}: a ${damaged.kind} log was accepted`);
        assert.equal(back.tornLine?.line, damaged.lines, `${where}: the torn line is reported`);
        back.free();
      } catch (e) {
        if (e instanceof assert.AssertionError) throw e;
        expectTyped(e, `${where} log`);
        assert.notEqual(damaged.kind, "torn", `${where}: a torn last line was refused: ${e.message}`);
        assert.equal(e.code, "INVALID_INPUT");
      }
    }
  }
  session.free();
  compactor.free();
  assert.deepEqual(input, snapshot, `${where}: the input is untouched`);
}

/** Runs `cases` random cases; returns the counts. */
export async function runApiFuzz(cases, seed = 20261122) {
  const r = rng(seed);
  const counts = { cases: 0, ok: 0, errors: 0 };
  const formats = Object.keys(builders);
  for (let i = 0; i < cases; i++) {
    await one(r, formats[i % formats.length], counts);
    counts.cases += 1;
  }
  return counts;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cases = Number(process.argv[2] ?? 50_000);
  const started = Date.now();
  const counts = await runApiFuzz(cases, Number(process.argv[3] ?? 20261122));
  console.log(`api fuzz: ${counts.cases} cases, ${counts.ok} calls succeeded, ${counts.errors} typed errors, ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
