// The public classes are thin JS classes over wasm-bindgen's (js/guard.mjs): they forward every
// member by name, also members JS adds to the glue's prototypes, and keep what callers rely on:
// `instanceof`, `Symbol.dispose`, `free()` twice, the static constructors, `branch()`,
// subclassing, one class for both the ES module and the CommonJS entry. No file in js/ names
// wasm-bindgen's private fields.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esm from "context-compaction";

const require = createRequire(import.meta.url);
const cjs = require("../../js/node.cjs");
const glue = require("../../pkg/node/context_compaction.cjs");
const { Session, Compactor, CompactionError } = cjs;
const options = { contextWindow: 8000, summarize: "extractive" };
const turn = (i) => [{ role: "user", content: `question ${i} ` + "word ".repeat(200) }, { role: "assistant", content: `answer ${i} ` + "text ".repeat(200) }];
const code = (f) => {
  try {
    f();
    return "ok";
  } catch (e) {
    return e instanceof CompactionError ? e.code : e.name;
  }
};

test("one class per entry, instanceof, and the static constructors return it", () => {
  assert.equal(esm.Session, Session);
  assert.equal(esm.Compactor, Compactor);
  const made = new Session(options);
  made.append(turn(0));
  const read = Session.fromJSONL(made.toJSONL(), options);
  const file = Session.fromSessionFile(readFileSync(fileURLToPath(new URL("../fixtures/pi/large-session.jsonl", import.meta.url)), "utf8"), "pi", options);
  const branched = made.branch(made.entries()[0].id);
  for (const s of [made, read, file, branched]) {
    assert.ok(s instanceof Session);
    assert.ok(s instanceof esm.Session);
    assert.equal(s.constructor, Session);
    assert.ok(!(s instanceof glue.Session), "the public object is not the glue's");
  }
  assert.deepEqual(read.render().messages, made.render().messages);
  assert.equal(branched.entries().length, 2);
  assert.equal(Session.name, "Session");
  assert.equal(typeof Session.open, "function");
  assert.ok(new Compactor(options) instanceof Compactor);
  // Methods keep their names; getters stay getters.
  assert.equal(Session.prototype.append.name, "append");
  assert.equal(typeof Object.getOwnPropertyDescriptor(Session.prototype, "version").get, "function");
  assert.equal(made.version > 0, true);
});

test("free() twice and Symbol.dispose do nothing the second time; a freed object is DISPOSED", () => {
  const s = new Session(options);
  s.append(turn(0));
  s.free();
  s.free();
  s[Symbol.dispose]?.();
  assert.equal(code(() => s.check()), "DISPOSED");
  assert.equal(code(() => s.version), "DISPOSED");
  const c = new Compactor(options);
  c[Symbol.dispose]?.();
  c.free();
  assert.equal(code(() => c.check(turn(0))), "DISPOSED");
  if (Symbol.dispose) {
    const d = new Session(options);
    d.append(turn(1));
    d[Symbol.dispose]();
    assert.equal(code(() => d.render()), "DISPOSED");
  }
  // A method called on another object is a TypeError, not a crash.
  assert.equal(code(() => Session.prototype.check.call({})), "TypeError");
});

test("subclasses: new, the static constructors and branch() make instances of the subclass", async () => {
  class Tagged extends Session {
    constructor(opts, tag) {
      super(opts);
      this.tag = tag;
    }
    twice(messages) {
      this.append(messages);
      return this.append(messages);
    }
  }
  const t = new Tagged(options, "x");
  assert.equal(t.tag, "x");
  t.twice(turn(0));
  assert.equal(t.render().messages.length, 4);
  assert.ok(t instanceof Tagged && t instanceof Session);
  const read = Tagged.fromJSONL(t.toJSONL(), options);
  assert.ok(read instanceof Tagged);
  assert.equal(read.render().messages.length, 4);
  const b = t.branch(t.entries()[1].id);
  assert.ok(b instanceof Tagged);
  assert.equal(b.render().messages.length, 2);
  for (let i = 1; i < 12; i++) t.append(turn(i));
  assert.equal((await t.compact()).compacted, true);
  class Counting extends Compactor {}
  assert.ok(new Counting(options) instanceof Compactor);
});

test("members JS adds to the glue's prototypes are forwarded by name, before and after the guard was made", () => {
  glue.Session.prototype.__countedVersion = function () {
    return this.version * 10;
  };
  Object.defineProperty(glue.Session.prototype, "__messageCount", {
    get() {
      return this.render().messages.length;
    },
    configurable: true,
  });
  try {
    const s = new Session(options);
    s.append(turn(0));
    assert.equal(s.__countedVersion(), s.version * 10);
    assert.equal(s.__messageCount, 2);
    assert.equal(s.notAMember, undefined);
    assert.equal(typeof s.toString, "function");
  } finally {
    delete glue.Session.prototype.__countedVersion;
    delete glue.Session.prototype.__messageCount;
  }
  // A rejected promise of an async member is a CompactionError, as for the glue's own methods.
  const s = new Session(options);
  return s.compact({ notAnOption: 1 }).then(
    () => assert.fail("resolved"),
    (e) => assert.equal(e.code, "INVALID_OPTIONS"),
  );
});

test("no file in js/ names wasm-bindgen's private fields", () => {
  const root = fileURLToPath(new URL("../../js", import.meta.url));
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(root);
  assert.ok(files.some((f) => f.endsWith("guard.mjs")));
  for (const f of files) {
    const text = readFileSync(f, "utf8");
    assert.doesNotMatch(text, /__wbg_ptr|__wbg_inst/, f);
  }
});
