// The command-line tool (bin/context-compaction.mjs), spawned as a user runs it. Every number it
// prints is checked against the package's own (importSession, Compactor, Session,
// convertMessages), computed here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Compactor, Session, convertMessages, estimateTokens, factRetention, importSession } from "context-compaction";
import { consumerWith, root } from "./pack.mjs";
import { fixturePath } from "./fixtures.mjs";
import { progressBar } from "../../bin/cli/progress.mjs";

const cli = join(root, "bin/context-compaction.mjs");
const scratch = join(root, "tests/.tmp/cli");
rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });
const tmp = (name) => join(scratch, name);
// The API key the endpoint test names with --api-key-env (the spawned CLI inherits it).
process.env.CC_TEST_KEY = "secret-for-test";
const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;

/** Runs the CLI to completion: `{ status, stdout, stderr }`. */
const run = (args, options = {}) => spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8", maxBuffer: 64 << 20, ...options });
/** Runs the CLI without blocking this process (for tests that serve HTTP to it). */
const runAsync = (args) =>
  promisify(execFile)(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 }).then(
    (r) => ({ status: 0, ...r }),
    (e) => ({ status: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
const json = (args, options) => {
  const r = run([...args, "--json"], options);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};
const fails = (r, status, pattern) => {
  assert.equal(r.status, status, `exit ${r.status}, stderr: ${r.stderr}`);
  if (pattern) assert.match(r.stderr, pattern);
};

// Every session fixture: tests/fixtures/pi, tests/fixtures/claude-code and the bundled one.
const fixtures = [
  ...["pi", "claude-code"].flatMap((kind) =>
    readdirSync(fixturePath(kind))
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => ({ kind, path: fixturePath(`${kind}/${f}`) })),
  ),
  { kind: "claude-code", path: fixturePath("claude-code-tool-heavy.jsonl", { bundled: true }) },
];
const toolHeavy = fixturePath("claude-code-tool-heavy.jsonl", { bundled: true });
const relative = (path) => path.slice(root.length);

/** The package's numbers for messages under options, as inspect --json reports them. */
function expectedTokens(messages, options) {
  const byKind = (tokenizer) => {
    const c = new Compactor({ ...options, tokenizer });
    const e = c.estimate(messages);
    c.free();
    return { total: e.total, ...e.byKind };
  };
  const c = new Compactor(options);
  const check = c.check(messages);
  const plan = c.plan(messages);
  c.free();
  return { estimated: byKind("heuristic"), exact: byKind("o200k_base"), check, plan };
}

function assertReportMatches(report, messages, options) {
  const want = expectedTokens(messages, options);
  assert.deepEqual(report.tokens.estimated, want.estimated);
  assert.deepEqual(report.tokens.exact, want.exact);
  assert.deepEqual(report.trigger, { tokens: want.check.tokens, threshold: want.check.threshold, shouldCompact: want.check.shouldCompact, reason: want.check.reason });
  const p = want.plan;
  assert.deepEqual(
    [report.plan.summarized, report.plan.turnPrefix, report.plan.kept, report.plan.dropped, report.plan.prunedParts, report.plan.splitTurn],
    [p.summarize.length, p.turnPrefix.length, p.kept.length, p.dropped.length, p.pruned.length, p.splitTurn],
  );
  assert.deepEqual([report.plan.tokensBefore, report.plan.tokensAfter, report.plan.noop], [p.tokensBefore, p.tokensAfter, p.noop]);
  assert.deepEqual(report.plan.cost, p.cost);
}

test("the fixtures are all here", () => {
  assert.equal(fixtures.filter((f) => f.kind === "pi").length, 2);
  assert.equal(fixtures.filter((f) => f.kind === "claude-code").length, 5);
});

for (const { kind, path } of fixtures) {
  test(`inspect --json ${relative(path)}: the package's own numbers`, () => {
    const report = json(["inspect", path]);
    const file = importSession(readFileSync(path, "utf8"), kind);
    assert.equal(report.command, "inspect");
    assert.equal(report.ok, true);
    assert.deepEqual(report.input, { kind, format: file.format });
    assert.deepEqual(report.messages, { raw: file.history.length, live: file.messages.length });
    assert.ok(report.messages.live > 0);
    assert.deepEqual(
      report.compactions.map((c) => [c.line, c.tokensBefore, c.trigger, c.summaryChars, c.summaryTokens]),
      file.compactions.map((c) => [c.line, c.tokensBefore, c.trigger, c.summary.length, estimateTokens(c.summary)]),
    );
    assert.equal(report.settings.contextWindow, 200_000);
    assertReportMatches(report, file.messages, { contextWindow: 200_000, summarize: "extractive", format: file.format });
    // The kinds add up to the total.
    for (const tokens of [report.tokens.estimated, report.tokens.exact]) {
      const { total, ...kinds } = tokens;
      assert.equal(Object.values(kinds).reduce((a, b) => a + b, 0), total);
    }
  });
}

for (const { kind, path } of fixtures) {
  const name = relative(path);
  test(`compact --out ${name}: the package's compaction, read back by inspect`, async () => {
    const out = tmp(`${name.replace(/\W+/g, "_")}.compacted.jsonl`);
    const report = json(["compact", path, "--window", "4000", "--out", out]);
    const options = { contextWindow: 4000, summarize: "extractive" };
    const text = readFileSync(path, "utf8");
    const session = Session.fromSessionFile(text, kind, options);
    const want = await session.compact({ force: true });
    session.free();
    assert.equal(report.compacted, want.compacted);
    assert.deepEqual(report.tokens, { before: want.tokensBefore, after: want.tokensAfter });
    assert.equal(report.summaryChars, (want.summary ?? "").length);
    const recorded = importSession(text, kind).compactions.length;
    const back = json(["inspect", out, "--window", "4000"]);
    assert.equal(back.input.kind, "session");
    assert.equal(back.messages.live, report.messages.after);
    assert.equal(back.compactions.length, recorded + (want.compacted ? 1 : 0));
    if (want.compacted) {
      assert.ok(report.tokens.after < report.tokens.before);
      assert.equal(back.compactions.at(-1).tokensAfter, report.tokens.after);
    }
  });

  test(`a broken line in ${name} is named (exit 1, nothing on stdout)`, () => {
    const lines = readFileSync(path, "utf8").split("\n");
    const n = Math.max(2, Math.floor(lines.filter(Boolean).length / 2));
    lines[n - 1] = lines[n - 1].slice(0, Math.max(1, Math.floor(lines[n - 1].length / 2)));
    const file = tmp(`${name.replace(/\W+/g, "_")}.broken.jsonl`);
    writeFileSync(file, lines.join("\n"));
    for (const command of ["inspect", "compact"]) {
      const r = run([command, file]);
      fails(r, 1, new RegExp(`INVALID_INPUT at line ${n}: not valid JSON`));
      assert.equal(r.stdout, "");
    }
  });
}

test("inspect: recorded compactions are listed (pi and Claude Code)", () => {
  const pi = json(["inspect", fixturePath("pi/before-compaction.jsonl")]);
  assert.equal(pi.compactions.length, 2);
  assert.ok(pi.messages.raw > pi.messages.live);
  const cc = json(["inspect", fixturePath("claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")]);
  assert.equal(cc.compactions.length, 1);
  assert.equal(cc.compactions[0].trigger, "manual");
  const subagent = json(["inspect", fixturePath("claude-code/subagent.jsonl")]);
  assert.equal(subagent.input.kind, "claude-code");
});

test("inspect and compact report the fact retention of the summary they found or wrote", () => {
  const path = fixturePath("claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl");
  const cc = json(["inspect", path]);
  const file = importSession(readFileSync(path, "utf8"), "claude-code");
  const [c] = file.compactions;
  const expected = factRetention(file.history.slice(0, c.atMessage), c.summary, "anthropic");
  assert.deepEqual(cc.compactions[0].retention, expected);
  assert.ok(expected.total > 50 && expected.kept < expected.total, JSON.stringify(expected).slice(0, 300));
  const text = run(["inspect", path]);
  assert.match(text.stdout, new RegExp(`facts kept[\\s\\S]*${expected.kept} of ${expected.total}`));
  assert.match(text.stdout, /lost by the summary at line \d+:\n {2}\w[\w ]* \(\d+ of \d+\):\n {4}- /);
  const compacted = json(["compact", toolHeavy, "--window", "4000"]);
  assert.ok(compacted.retention.total > 0 && compacted.retention.kept <= compacted.retention.total);
  assert.match(run(["compact", toolHeavy, "--window", "4000"]).stdout, /facts kept +\d+ of \d+ \(\d+%\)/);
});

test("inspect --model --preset --tokenizer: the window and trigger the package resolves", () => {
  const path = fixturePath("claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl");
  const report = json(["inspect", path, "--model", "gpt-4o", "--preset", "codex", "--tokenizer", "cl100k_base"]);
  assert.deepEqual(report.settings, { contextWindow: 128_000, model: "gpt-4o", preset: "codex", tokenizer: "cl100k_base" });
  const file = importSession(readFileSync(path, "utf8"), "claude-code");
  assertReportMatches(report, file.messages, { model: "gpt-4o", preset: "codex", tokenizer: "cl100k_base", summarize: "extractive", format: "anthropic" });
  const small = json(["inspect", toolHeavy, "--window", "3000"]);
  assert.equal(small.settings.contextWindow, 3000);
  assert.equal(small.trigger.shouldCompact, true);
});

test("inspect prints a readable report", () => {
  const r = run(["inspect", toolHeavy]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Claude Code session \(JSONL\), anthropic messages/);
  assert.match(r.stdout, /15 in the file, 15 live/);
  for (const kind of ["system", "text", "reasoning", "tool calls", "tool results", "images", "total"]) {
    assert.match(r.stdout, new RegExp(`^  ${kind}\\s+[\\d,]+\\s+[\\d,]+$`, "m"));
  }
  assert.match(r.stdout, /threshold of 183,617/);
  assert.match(r.stdout, /plan of a compaction now/);
  assert.equal(r.stderr, "");
});

test("inspect shows what a compaction now costs in each summary request mode", () => {
  const r = run(["inspect", "--preset", "claude-code", fixturePath("claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^  cost +continue ~[\d,]+ \([\d,]+ read, 0 written, [\d,]+ fresh\), transcript ~[\d,]+ \(0 read, 0 written, [\d,]+ fresh\) input-token equivalents at anthropic's cache rules; output budget 20,000; continue by default$/m);
});

test("inspect reads JSON message arrays of every format, and stdin", () => {
  const live = importSession(readFileSync(toolHeavy, "utf8"), "claude-code").messages;
  for (const format of ["ai-sdk", "openai", "anthropic", "langchain", "pi"]) {
    const messages = convertMessages(live, { to: format });
    const file = tmp(`messages-${format}.json`);
    writeFileSync(file, JSON.stringify(messages));
    const report = json(["inspect", file]);
    assert.deepEqual(report.input, { kind: "messages", format });
    assert.deepEqual(report.messages, { raw: messages.length, live: messages.length });
    assertReportMatches(report, messages, { contextWindow: 200_000, summarize: "extractive", format });
  }
  // {"messages": [...]} and a forced format.
  const wrapped = tmp("wrapped.json");
  writeFileSync(wrapped, JSON.stringify({ messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }] }, null, 2));
  assert.equal(json(["inspect", wrapped]).messages.live, 2);
  assert.equal(json(["inspect", wrapped, "--format", "openai"]).input.format, "openai");
  const piText = readFileSync(fixturePath("pi/large-session.jsonl"), "utf8");
  const viaStdin = json(["inspect", "-"], { input: piText });
  assert.deepEqual(viaStdin.input, { kind: "pi", format: "pi" });
  assert.equal(viaStdin.messages.live, importSession(piText, "pi").messages.length);
});

test("a malformed session names the line; --json adds an error object", () => {
  for (const [source, n] of [
    [fixturePath("claude-code/short.jsonl"), 3],
    [fixturePath("pi/large-session.jsonl"), 7],
  ]) {
    const lines = readFileSync(source, "utf8").split("\n");
    lines[n - 1] = '{"type": "message", broken';
    const file = tmp(`bad-line-${n}.jsonl`);
    writeFileSync(file, lines.join("\n"));
    const r = run(["inspect", file]);
    fails(r, 1, new RegExp(`INVALID_INPUT at line ${n}: not valid JSON`));
    assert.equal(r.stdout, "");
    const j = run(["inspect", file, "--json"]);
    fails(j, 1);
    const out = JSON.parse(j.stdout);
    assert.deepEqual([out.ok, out.exitCode, out.error.code, out.error.line], [false, 1, "INVALID_INPUT", n]);
  }
  // A broken JSON array, and a message the package rejects: the line, the field's path.
  const array = tmp("bad-array.json");
  writeFileSync(array, '[\n{"role": "user", "content": "hi"},\n{"role": "assistant" "content": "x"}\n]');
  fails(run(["inspect", array]), 1, /INVALID_INPUT at line 3: not valid JSON/);
  const message = tmp("bad-message.json");
  writeFileSync(message, JSON.stringify([{ role: "user", content: "hi" }, { content: "no role" }]));
  fails(run(["inspect", message]), 1, /INVALID_INPUT at messages\[1\]\.role: missing required field "role"/);
  // A session log with a bad entry (lines[i] of the package is line i + 1).
  const log = tmp("bad-log.jsonl");
  writeFileSync(log, '{"type":"session","version":1,"id":"x","format":"ai-sdk"}\n{"type":"message","id":"e1","parentId":null,"message":{"content":"x"}}\n');
  fails(run(["inspect", log]), 1, /INVALID_INPUT at line 2\.message\.role/);
});

test("a missing file, a file that is not a session, an empty file: exit 1, no report", () => {
  const missing = run(["inspect", tmp("nope.jsonl")]);
  fails(missing, 1, /nope\.jsonl: ENOENT: no such file/);
  assert.equal(missing.stdout, "");
  const notJsonl = run(["inspect", join(root, "README.md")]);
  fails(notJsonl, 1, /INVALID_INPUT at line 1: not valid JSON/);
  for (const [name, text] of [
    ["object.json", readFileSync(join(root, "package.json"), "utf8")],
    ["objects.jsonl", '{"a": 1}\n{"b": 2}\n'],
    ["one-object.json", '{"name": "x"}'],
    ["string.json", '"hello"'],
    ["empty.jsonl", "\n"],
  ]) {
    writeFileSync(tmp(name), text);
    const r = run(["inspect", tmp(name)]);
    fails(r, 1, /not a session file or message array/);
    assert.equal(r.stdout, "", name);
  }
  // A session the flag says is something else.
  fails(run(["inspect", toolHeavy, "--format", "pi"]), 1, /this is a Claude Code session file \(a "[a-z-]+" entry\), not a pi one/);
  fails(run(["inspect", toolHeavy, "--format", "openai"]), 1, /--format openai reads a JSON array/);
});

test("usage errors exit 2; --help, -h and --version exit 0", () => {
  fails(run(["inspect", toolHeavy, "--bogus"]), 2, /unknown option --bogus/);
  fails(run(["--bogus"]), 2, /unknown option --bogus/);
  fails(run(["frobnicate"]), 2, /unknown command "frobnicate"/);
  fails(run([toolHeavy]), 2, /unknown command .*context-compaction inspect/);
  fails(run([]), 2, /a command is required/);
  fails(run(["inspect"]), 2, /inspect needs a file/);
  fails(run(["inspect", toolHeavy, toolHeavy]), 2, /one file/);
  fails(run(["inspect", toolHeavy, "--window", "0"]), 2, /--window must be an integer/);
  fails(run(["inspect", toolHeavy, "--window"]), 2, /--window/);
  fails(run(["inspect", toolHeavy, "--tokenizer", "gpt2"]), 2, /--tokenizer must be one of/);
  fails(run(["convert", toolHeavy]), 2, /--to is required/);
  fails(run(["convert", toolHeavy, "--to", "xml"]), 2, /--to must be one of/);
  fails(run(["compact", toolHeavy, "--summarizer", "ftp://x"]), 2, /--summarizer must be/);
  fails(run(["compact", toolHeavy, "--summarizer", "http://127.0.0.1:9/v1/chat/completions"]), 2, /--summarizer-model is required/);
  fails(run(["compact", toolHeavy, "--api-key-env", "HOME"]), 2, /needs --summarizer URL/);
  // Option values the package rejects (INVALID_OPTIONS) are usage errors too.
  fails(run(["inspect", toolHeavy, "--preset", "nope"]), 2, /INVALID_OPTIONS at preset/);
  fails(run(["inspect", toolHeavy, "--model", "no-such-model"]), 2, /INVALID_OPTIONS/);
  for (const args of [["--help"], ["-h"], ["help"]]) {
    const r = run(args);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /^Usage: context-compaction <command>/);
    assert.match(r.stdout, /Exit codes:\n  0 .*\n  1 .*bad input[\s\S]*\n  2 .*usage[\s\S]*\n  3 .*summarizer/);
    for (const command of ["inspect", "compact", "convert", "demo", "inspector"]) assert.match(r.stdout, new RegExp(`^  ${command}`, "m"));
  }
  for (const command of ["inspect", "compact", "convert", "demo", "inspector"]) {
    for (const args of [[command, "--help"], [command, "-h"], ["help", command]]) {
      const r = run(args);
      assert.equal(r.status, 0, args.join(" "));
      assert.match(r.stdout, new RegExp(`^Usage: context-compaction ${command}`));
      assert.match(r.stdout, /Exit codes:/);
    }
  }
  assert.match(run(["compact", "--help"]).stdout, /--summarizer[\s\S]*--out/);
  const v = run(["--version"]);
  assert.equal(v.status, 0);
  assert.equal(v.stdout.trim(), version);
});

test("compact --out writes a session log that inspect reads back with the compaction", () => {
  const out = tmp("compacted.jsonl");
  const report = json(["compact", toolHeavy, "--window", "8000", "--out", out]);
  assert.equal(report.compacted, true);
  assert.equal(report.summarizer, "extractive");
  assert.equal(report.out, out);
  const text = readFileSync(out, "utf8");
  assert.equal(report.bytes, Buffer.byteLength(text));
  // What the package does with the same session and options.
  const options = { contextWindow: 8000, summarize: "extractive" };
  const session = Session.fromSessionFile(readFileSync(toolHeavy, "utf8"), "claude-code", options);
  const before = session.render({ cacheControl: false }).messages.length;
  const expected = session.compact({ force: true });
  return expected.then((want) => {
    assert.deepEqual(report.messages, { before, after: want.messages.length });
    assert.deepEqual(report.tokens, { before: want.tokensBefore, after: want.tokensAfter });
    assert.equal(report.round, want.round);
    assert.equal(report.summaryChars, want.summary.length);
    assert.ok(report.tokens.after < report.tokens.before);
    // The file is the package's own log, read back byte for byte.
    const reread = Session.fromJSONL(text, options);
    assert.equal(reread.toJSONL(), text);
    const live = reread.render({ cacheControl: false }).messages;
    const back = json(["inspect", out, "--window", "8000"]);
    assert.deepEqual(back.input, { kind: "session", format: "anthropic" });
    assert.deepEqual(back.messages, { raw: 15, live: report.messages.after });
    assert.equal(back.compactions.length, 1);
    const [c] = back.compactions;
    assert.deepEqual([c.tokensBefore, c.tokensAfter, c.round, c.summaryChars], [report.tokens.before, report.tokens.after, 1, report.summaryChars]);
    assert.equal(text.split("\n")[c.line - 1].includes('"type":"compaction"'), true);
    assertReportMatches(back, live, { ...options, format: "anthropic" });
    // Compacting the log again continues it: a second round.
    const again = tmp("compacted-twice.jsonl");
    const second = json(["compact", out, "--window", "2000", "--out", again]);
    assert.equal(second.input.kind, "session");
    assert.equal(second.compacted, true);
    assert.equal(second.round, 2);
    assert.equal(json(["inspect", again]).compactions.length, 2);
  });
});

test("compact keeps a pi file's recorded compactions, and compacts message arrays", () => {
  const out = tmp("pi-compacted.jsonl");
  const report = json(["compact", fixturePath("pi/before-compaction.jsonl"), "--preset", "pi", "--out", out]);
  assert.equal(report.compacted, true);
  const back = json(["inspect", out]);
  assert.equal(back.compactions.length, 3);
  assert.equal(back.messages.live, report.messages.after);
  const array = tmp("array.json");
  writeFileSync(array, JSON.stringify(convertMessages(importSession(readFileSync(toolHeavy, "utf8"), "claude-code").messages, { to: "openai" })));
  const arrayOut = tmp("array-compacted.jsonl");
  const fromArray = json(["compact", array, "--window", "8000", "--out", arrayOut]);
  assert.equal(fromArray.compacted, true);
  assert.deepEqual(json(["inspect", arrayOut]).input, { kind: "session", format: "openai" });
});

test("compact without --out writes nothing; --out - writes the log to stdout", () => {
  const r = run(["compact", toolHeavy, "--window", "8000"]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /messages +15 → 4 live/);
  assert.match(r.stdout, /written +nothing \(pass --out FILE/);
  const piped = run(["compact", toolHeavy, "--window", "8000", "--out", "-"]);
  assert.equal(piped.status, 0, piped.stderr);
  const session = Session.fromJSONL(piped.stdout, { contextWindow: 8000, summarize: "extractive" });
  assert.equal(session.entries().filter((e) => e.type === "compaction").length, 1);
  assert.match(piped.stderr, /compacted .*written +stdout/s);
  fails(run(["compact", toolHeavy, "--out", "-", "--json"]), 2, /pick one/);
  // Nothing to compact: said, and not an error.
  const nothing = json(["compact", fixturePath("claude-code/short.jsonl")]);
  assert.equal(nothing.compacted, false);
  assert.deepEqual(nothing.warnings, ["nothing to compact"]);
});

/** A local OpenAI-compatible endpoint: `answer(body, headers)` gives `[status, json]`. */
async function endpoint(answer) {
  const requests = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const parsed = JSON.parse(body);
      requests.push({ body: parsed, headers: req.headers, url: req.url });
      const [status, reply] = answer(parsed);
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1/chat/completions`, requests, close: () => server.close() };
}

test("compact --summarizer URL calls an OpenAI-compatible endpoint (no progress bar off a TTY)", async () => {
  const server = await endpoint((body) => [200, { choices: [{ message: { role: "assistant", content: `Summary by the endpoint of a ${body.messages[1].content.length}-character prompt.` } }] }]);
  try {
    const out = tmp("endpoint.jsonl");
    const r = await runAsync(["compact", fixturePath("pi/large-session.jsonl"), "--summarizer", server.url, "--summarizer-model", "tiny-model", "--api-key-env", "CC_TEST_KEY", "--instructions", "Keep file names.", "--retries", "0", "--out", out]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /summarizer +http:\/\/127\.0\.0\.1/);
    // stderr is a pipe here: no progress bar.
    assert.equal(r.stderr, "");
    assert.ok(server.requests.length >= 1);
    for (const { body } of server.requests) {
      assert.equal(body.model, "tiny-model");
      assert.deepEqual(body.messages.map((m) => m.role), ["system", "user"]);
      assert.equal(typeof body.max_tokens, "number");
    }
    assert.ok(server.requests.some(({ body }) => body.messages[1].content.includes("Keep file names.")));
    assert.equal(server.requests[0].headers.authorization, "Bearer secret-for-test");
    assert.match(readFileSync(out, "utf8"), /Summary by the endpoint/);
  } finally {
    server.close();
  }
});
test("a summarizer failure exits 3 and writes nothing", async () => {
  const server = await endpoint(() => [500, { error: { message: "model overloaded" } }]);
  try {
    const out = tmp("never.jsonl");
    const r = await runAsync(["compact", toolHeavy, "--window", "8000", "--summarizer", server.url, "--summarizer-model", "m", "--retries", "0", "--out", out]);
    fails(r, 3, /SUMMARIZER_FAILED.*500/);
    assert.equal(existsSync(out), false);
    assert.equal(r.stdout, "");
    const j = await runAsync(["compact", toolHeavy, "--window", "8000", "--summarizer", server.url, "--summarizer-model", "m", "--retries", "0", "--out", out, "--json"]);
    fails(j, 3);
    assert.deepEqual([JSON.parse(j.stdout).exitCode, JSON.parse(j.stdout).error.code], [3, "SUMMARIZER_FAILED"]);
    assert.equal(existsSync(out), false);
  } finally {
    server.close();
  }
  // Nothing listening: the same.
  const refused = await runAsync(["compact", toolHeavy, "--window", "8000", "--summarizer", "http://127.0.0.1:9/v1/chat/completions", "--summarizer-model", "m", "--retries", "0"]);
  fails(refused, 3, /SUMMARIZER_FAILED/);
});

test("the progress bar is drawn on a TTY only", () => {
  const writes = [];
  const tty = { isTTY: true, columns: 80, write: (s) => writes.push(s) };
  const bar = progressBar(tty);
  bar.start();
  bar.onProgress({ done: 1, total: 4 });
  bar.onProgress({ done: 4, total: 4 });
  bar.end();
  assert.match(writes[1], /^\rsummarizing \[#+-+\] 1\/4/);
  assert.match(writes[2], /\] 4\/4/);
  assert.doesNotMatch(writes[2], /-\]/);
  assert.equal(writes.at(-1), "\r\x1b[K");
  const pipe = progressBar({ isTTY: false, write: () => assert.fail("drawn on a pipe") });
  assert.equal(pipe.onProgress, undefined);
  pipe.start();
  pipe.end();
});

test("convert writes every target, and each reads back", () => {
  for (const [source, kind] of [
    [toolHeavy, "claude-code"],
    [fixturePath("pi/before-compaction.jsonl"), "pi"],
  ]) {
    const file = importSession(readFileSync(source, "utf8"), kind);
    for (const to of ["ai-sdk", "openai", "anthropic", "langchain", "pi"]) {
      const out = tmp(`convert-${kind}-${to}.json`);
      const report = json(["convert", source, "--to", to, "--out", out]);
      const written = JSON.parse(readFileSync(out, "utf8"));
      const want = convertMessages(file.messages, { from: file.format, to });
      assert.deepEqual(written, want, `${kind} → ${to}`);
      assert.deepEqual(report.messages, { in: file.messages.length, out: want.length });
      // The package reads it back as that format, unchanged.
      assert.deepEqual(convertMessages(written, { from: to, to }), written);
      assert.deepEqual(json(["inspect", out]).input, { kind: "messages", format: to });
    }
    const out = tmp(`convert-${kind}.pi.jsonl`);
    json(["convert", source, "--to", "pi-jsonl", "--out", out]);
    const text = readFileSync(out, "utf8");
    const back = importSession(text, "pi");
    const want = convertMessages(file.messages, { from: file.format, to: "pi" });
    const untimed = (messages) => messages.map(({ timestamp, ...m }) => m);
    assert.deepEqual(untimed(back.messages), untimed(want));
    assert.ok(back.messages.every((m) => m.timestamp > 0));
    assert.deepEqual(back.compactions, []);
    assert.deepEqual(json(["inspect", out]).input, { kind: "pi", format: "pi" });
  }
});

test("convert without --out writes to stdout; --json holds the output", () => {
  const r = run(["convert", toolHeavy, "--to", "openai"]);
  assert.equal(r.status, 0, r.stderr);
  const live = importSession(readFileSync(toolHeavy, "utf8"), "claude-code").messages;
  assert.deepEqual(JSON.parse(r.stdout), convertMessages(live, { to: "openai" }));
  const j = json(["convert", toolHeavy, "--to", "anthropic"]);
  assert.deepEqual(j.output, convertMessages(live, { to: "anthropic" }));
  const p = json(["convert", toolHeavy, "--to", "pi-jsonl"]);
  assert.equal(importSession(p.output, "pi").messages.length, p.messages.out);
});

test("demo (npm start): before, the extractive compaction, after", () => {
  const r = run(["demo"]);
  assert.equal(r.status, 0, r.stderr);
  const j = json(["demo"]);
  const live = importSession(readFileSync(toolHeavy, "utf8"), "claude-code").messages;
  assertReportMatches(j.before, live, { contextWindow: 3000, summarize: "extractive", format: "anthropic" });
  assert.equal(j.before.trigger.shouldCompact, true);
  assert.equal(j.after.trigger.shouldCompact, false);
  const after = j.compact.messages.after;
  assert.match(
    r.stdout,
    new RegExp(`=== before[\\s\\S]*15 in the file, 15 live[\\s\\S]*compact now +yes[\\s\\S]*=== context-compaction compact --summarizer extractive[\\s\\S]*15 → ${after} live[\\s\\S]*=== after[\\s\\S]*compactions +1 recorded[\\s\\S]*compact now +no`),
  );
  assert.equal(j.before.messages.live, 15);
  assert.equal(j.compact.compacted, true);
  assert.equal(j.after.messages.live, j.compact.messages.after);
  assert.equal(j.after.compactions.length, 1);
  assert.equal(j.after.tokens.estimated.total, j.compact.tokens.after);
  // The session is the sample that ships in the package (www/sample, its license beside it).
  assert.equal(j.file, "www/sample/claude-code-tool-heavy.jsonl");
  assert.ok(existsSync(join(root, "www/sample/LICENSE-claude-code-tool-heavy")));
  fails(run(["demo", tmp("nope.jsonl")]), 1, /no such file/);
});

/** Runs `args` with stdout into `head -c 100`: the CLI's own exit code and stderr, and what head printed. */
function intoHead(args) {
  const quoted = [process.execPath, cli, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const r = spawnSync("bash", ["-c", `${quoted} 2>"$ERR" | head -c 100; echo " $\{PIPESTATUS[0]}" >"$STATUS"`], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, ERR: tmp("head.err"), STATUS: tmp("head.status") },
  });
  assert.equal(r.status, 0, r.stderr);
  return { status: Number(readFileSync(tmp("head.status"), "utf8")), stderr: readFileSync(tmp("head.err"), "utf8"), stdout: r.stdout };
}

test("output piped into a reader that stops early (head) ends the run quietly, exit 0", () => {
  // Far more than a pipe holds (64 KiB), so the writes meet the closed pipe.
  const large = fixturePath("pi/large-session.jsonl");
  for (const args of [
    ["convert", large, "--to", "openai"],
    ["convert", large, "--to", "pi-jsonl"],
    ["inspect", large, "--json"],
  ]) {
    const r = intoHead(args);
    assert.equal(r.stdout.length, 100, args.join(" "));
    assert.equal(r.stderr, "", `${args.join(" ")}: no 'error' event, no stack trace`);
    assert.equal(r.status, 0, args.join(" "));
  }
});

/** Starts `inspector` with `args`; resolves to `{ child, line }` once it printed its first line. */
function startInspector(args, options = {}) {
  const child = spawn(process.execPath, [cli, "inspector", ...args], { cwd: root, ...options });
  let out = "";
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stderr: err })));
  const line = new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve(out.split("\n")[0]);
    });
    exited.then((e) => reject(new Error(`inspector exited ${e.code}: ${e.stderr}`)));
  });
  return { child, line, exited };
}

test("inspector serves the page, the web entry, the .wasm and the sample on 127.0.0.1 until SIGTERM", async () => {
  const { child, line, exited } = startInspector(["--json"]);
  const report = JSON.parse(await line);
  assert.equal(report.command, "inspector");
  assert.match(report.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(report.pages.inspector, `${report.url}/www/index.html`);
  assert.equal(report.pages.counter, `${report.url}/www/counter.html`);
  for (const [path, type] of [
    ["/www/index.html", /text\/html/],
    ["/www/worker.mjs", /javascript/],
    ["/js/web.mjs", /javascript/],
    ["/pkg/web/context_compaction_bg.wasm", /application\/wasm/],
    ["/encodings/o200k_base.ranks", /octet-stream/],
    ["/www/sample/claude-code-tool-heavy.jsonl", /text\/plain/],
  ]) {
    const res = await fetch(report.url + path);
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get("content-type"), type, path);
    await res.arrayBuffer();
  }
  const home = await fetch(`${report.url}/`, { redirect: "manual" });
  assert.equal(home.headers.get("location"), "/www/index.html");
  child.kill("SIGTERM");
  const { code, stderr } = await exited;
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");

  // The text report names both pages; a port in use is exit 1; a file is a usage error.
  const text = startInspector([]);
  const first = await text.line;
  assert.match(first, /^inspector +http:\/\/127\.0\.0\.1:\d+\/www\/index\.html$/);
  const port = new URL(first.split(/ +/)[1]).port;
  fails(run(["inspector", "--port", port]), 1, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}`));
  text.child.kill("SIGINT");
  assert.equal((await text.exited).code, 0);
  // --port picks the port (the one just freed).
  const fixed = startInspector(["--port", port, "--json"]);
  assert.equal(JSON.parse(await fixed.line).url, `http://127.0.0.1:${port}`);
  fixed.child.kill("SIGTERM");
  assert.equal((await fixed.exited).code, 0);
  fails(run(["inspector", "session.jsonl"]), 2, /inspector takes no file/);
  fails(run(["inspector", "--port", "70000"]), 2, /--port must be at most 65535/);
  assert.match(run(["inspector", "--help"]).stdout, /^Usage: context-compaction inspector/);
});

test("the installed package's bin runs", () => {
  const dir = consumerWith("cli");
  const bin = join(dir, "node_modules/.bin/context-compaction");
  assert.equal(execFileSync(bin, ["--version"], { encoding: "utf8" }).trim(), version);
  const report = JSON.parse(execFileSync(bin, ["inspect", toolHeavy, "--json"], { encoding: "utf8" }));
  assert.equal(report.messages.live, 15);
  const out = join(dir, "compacted.jsonl");
  execFileSync(bin, ["compact", toolHeavy, "--window", "8000", "--out", out], { encoding: "utf8" });
  assert.equal(JSON.parse(execFileSync(bin, ["inspect", out, "--json"], { encoding: "utf8" })).compactions.length, 1);
});
