// The hand-written declarations (js/types/*.d.ts) against the code: the fields of every result
// interface are exactly the fields the calls return (a required one always there, none undeclared),
// and every declared option key is one the code reads (never "unknown option"), while the keys a
// call's options accept, as the code lists them, are exactly the declared ones (the constructors'
// and trimMessages' too: the core keeps one key list each, which its unknown-option error names).
// A field added on one side only fails here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { Compactor, Session, convertMessages, describeContextOverflow, importSession, repairMessages, trimMessages, validateMessages } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const program = ts.createProgram([`${root}js/index.d.ts`], {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  strict: true,
  noEmit: true,
  types: ["node"],
  typeRoots: [`${root}node_modules/@types`],
});
const checker = program.getTypeChecker();
const entry = checker.getSymbolAtLocation(program.getSourceFile(`${root}js/index.d.ts`));
const exported = new Map(checker.getExportsOfModule(entry).map((s) => [s.name, s]));

/** The declared fields of an exported interface (or of one member of a union type alias). */
function fields(name, member) {
  const symbol = exported.get(name);
  assert.ok(symbol, `${name} is not exported`);
  let type = checker.getDeclaredTypeOfSymbol(symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  if (member !== undefined) type = type.types.find(member);
  const out = { required: new Set(), optional: new Set() };
  for (const p of checker.getPropertiesOfType(type)) (p.flags & ts.SymbolFlags.Optional ? out.optional : out.required).add(p.name);
  return out;
}

/** `value`'s own keys against interface `name`: required ones present, none undeclared. */
function matches(name, value, member) {
  const { required, optional } = fields(name, member);
  const keys = new Set(Object.keys(value));
  for (const k of required) assert.ok(keys.has(k), `${name}.${k} is declared but the code returns no such field`);
  for (const k of keys) assert.ok(required.has(k) || optional.has(k), `the code returns ${name}.${k}, which is not declared`);
}

const pi = fixtureText("pi/large-session.jsonl");
const options = { contextWindow: 32_000, keepRecentTokens: 8_000, summarize: "extractive" };

test("Compactor results: estimate, check, plan, compact, and what they hold", async () => {
  const requests = [];
  const messages = importSession(pi, "pi").messages;
  const compactor = new Compactor({ ...options, summarize: (r) => (requests.push(r), "the summary") });
  const estimate = compactor.estimate(messages);
  matches("Estimate", estimate);
  matches("TokensByKind", estimate.byKind);
  matches("Calibration", estimate.calibration);
  matches("CalibrationFactors", estimate.calibration.factors);
  matches("CheckResult", compactor.check(messages));
  const plan = compactor.plan(messages);
  matches("PlanPreview", plan);
  for (const change of [...plan.pruned, ...plan.truncated]) matches("PartChange", change);
  const result = await compactor.compact(messages);
  matches("CompactResult", result);
  assert.ok(result.digest);
  matches("Digest", result.digest);
  assert.ok(requests.length > 0);
  for (const r of requests) matches("SummaryRequest", r);
  compactor.free();
});

test("Session results: check, render, prepare, compact, entries", async () => {
  const session = Session.fromSessionFile(pi, "pi", options);
  matches("SessionCheck", session.check());
  const rendered = session.render();
  matches("RenderResult", rendered);
  for (const point of rendered.cachePoints) matches("CachePointInfo", point);
  matches("RenderResult", await session.prepare({ now: Date.now() }));
  matches("PlanPreview", session.plan());
  const compacted = await session.compact();
  matches("SessionCompactResult", compacted);
  const entries = session.entries();
  const compaction = entries.find((e) => e.type === "compaction");
  const other = entries.find((e) => e.type !== "compaction");
  assert.ok(compaction && other);
  matches("SessionCompactionEntry", compaction);
  matches("SessionLogEntry", other);
  const memory = session.memory();
  assert.deepEqual(Object.keys(memory).sort(), ["notes", "summary", "text"]);
  session.free();
});

test("free functions' results: import, validation, repair, overflow", () => {
  const imported = importSession(fixtureText("pi/before-compaction.jsonl"), "pi");
  matches("ImportedSessionOf", imported);
  assert.ok(imported.compactions.length > 0);
  for (const c of imported.compactions) matches("SessionCompaction", c);
  const broken = [
    { role: "user", content: "hi" },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "x", toolName: "t", output: { type: "text", value: "r" } }] },
  ];
  const violations = validateMessages(broken, "ai-sdk");
  assert.ok(violations.length > 0);
  for (const v of violations) matches("Violation", v);
  matches("RepairResult", repairMessages(broken, "ai-sdk"));
  const overflow = describeContextOverflow(new Error("This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."));
  assert.ok(overflow);
  matches("ContextOverflow", overflow);
});

/** The keys a call lists in its "unknown option" error. */
function listedKeys(call) {
  try {
    call({ notAnOption: 1 });
  } catch (error) {
    assert.equal(error.code, "INVALID_OPTIONS");
    const list = /\(expected ([^)]*)\)/.exec(error.message);
    assert.ok(list, error.message);
    return new Set(list[1].split(", "));
  }
  assert.fail("an unknown option was accepted");
}

const all = ({ required, optional }) => new Set([...required, ...optional]);

test("call options: the keys the code accepts are the declared ones", async () => {
  const session = new Session(options);
  session.append({ role: "user", content: "hello" });
  assert.deepEqual(listedKeys((o) => session.render(o)), all(fields("RenderOptions")));
  const compactor = new Compactor(options);
  const sync = (f) => (o) => f(o);
  assert.deepEqual(listedKeys(sync((o) => compactor.check([], o))), new Set(["usage"]));
  await assert.rejects(compactor.compact([{ role: "user", content: "x" }], { notAnOption: 1 }), (e) => {
    const list = /\(expected ([^)]*)\)/.exec(e.message);
    assert.deepEqual(new Set(list[1].split(", ")), all(fields("CompactCallOptions")));
    return true;
  });
  await assert.rejects(session.prepare({ notAnOption: 1 }), (e) => {
    const list = /\(expected ([^)]*)\)/.exec(e.message);
    assert.deepEqual(new Set(list[1].split(", ")), all(fields("PrepareOptions")));
    return true;
  });
  assert.deepEqual(listedKeys((o) => convertMessages([], o)), new Set(["from", "to", "unansweredCalls"]));
  session.free();
  compactor.free();
});

// The keys js/stored-compactor.mjs takes out of a Compactor's options before the core sees them.
const STORE_KEYS = ["store", "conversationId", "leaseMs", "compactionWaitMs", "holder"];

test("constructor options: the keys the core lists (one list, also its unknown-option check) are the declared ones", () => {
  const minus = (set, keys) => new Set([...set].filter((k) => !keys.includes(k)));
  const compactorKeys = all(fields("CompactorOptions"));
  assert.ok(STORE_KEYS.every((k) => compactorKeys.has(k)));
  assert.deepEqual(listedKeys((o) => new Compactor({ ...options, ...o })), minus(compactorKeys, STORE_KEYS));
  assert.deepEqual(listedKeys((o) => new Session({ ...options, ...o })), all(fields("SessionOptions")));
  assert.deepEqual(listedKeys((o) => trimMessages([], { maxTokens: 10, ...o })), all(fields("TrimOptions")));
});

test("every declared option of the constructors and trimMessages is one the code reads", () => {
  const unknown = (make, name) => {
    const found = [];
    for (const key of all(fields(name))) {
      try {
        make(key)?.free?.();
      } catch (error) {
        if (error.code === "INVALID_OPTIONS" && error.path === key && /unknown option/.test(error.message)) found.push(key);
      }
    }
    return found;
  };
  // A value of the wrong type is refused by name (or its inner key), never as an unknown key.
  const probe = { probe: true };
  const messages = [{ role: "user", content: "hello" }];
  // The probe sees a key the code does not read:
  const digestKeys = [...all(fields("Digest"))];
  assert.ok(digestKeys.includes("filesRead") && digestKeys.includes("retention"), digestKeys.join());
  assert.deepEqual(unknown((k) => new Compactor({ ...options, [k]: probe }), "Digest"), digestKeys);
  assert.deepEqual(unknown((k) => new Compactor({ ...options, [k]: probe }), "CompactorOptions"), []);
  assert.deepEqual(unknown((k) => new Session({ ...options, [k]: probe }), "SessionOptions"), []);
  assert.deepEqual(unknown((k) => void trimMessages(messages, { maxTokens: 100, [k]: probe }), "TrimOptions"), []);
});