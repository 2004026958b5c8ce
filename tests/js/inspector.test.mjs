// The www/ inspector in headless Chromium matches the package's own estimate and plan, compacts and undoes, reports bad lines, stays responsive on 10 MB, and auto-compacts in chat mode.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createServer } from "node:http";
import { Compactor, Session, importSession } from "context-compaction";
import { serve, launchChromium } from "./serve.mjs";
import { root } from "./pack.mjs";

const shots = join(root, "tests/.tmp/screenshots");
mkdirSync(shots, { recursive: true });
const sampleText = readFileSync(join(root, "www/sample/claude-code-tool-heavy.jsonl"), "utf8");
// The page's defaults (www/index.html).
const defaults = { contextWindow: 3000, reserveTokens: 500, trigger: { fraction: 0.8 } };
const T = { timeout: 30_000 };

let browser, server;
before(async () => {
  [browser, server] = await Promise.all([launchChromium(), serve(root)]);
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function open() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  await page.goto(`${server.url}/www/index.html`);
  await page.waitForFunction(() => document.body.dataset.ready, undefined, T);
  return { page, errors };
}

const state = (page, states) =>
  page.waitForFunction((s) => s.includes(document.body.dataset.state), states, T);

async function loadSample(page) {
  await page.click("#sample");
  await state(page, ["loaded", "error"]);
  assert.equal(await page.evaluate(() => document.body.dataset.state), "loaded", await page.textContent("#status"));
}

const firstKept = (page) => page.$eval("#timeline", (t) => Number(t.dataset.firstKept));

test("the sample's blocks and token numbers are the package's estimate", async () => {
  const { page, errors } = await open();
  await loadSample(page);
  // The page imports the package by its name (the import map), and the worker loads what it resolved.
  assert.equal(await page.evaluate(() => document.documentElement.dataset.package), `${server.url}/js/web.mjs`);
  const { messages } = importSession(sampleText, "claude-code");
  const compactor = new Compactor({ ...defaults, summarize: "extractive" });
  const estimate = compactor.estimate(messages);
  const blocks = await page.$$eval("#timeline .msg", (ms) => ms.map((m) => ({ kind: m.dataset.kind, tokens: Number(m.dataset.tokens) })));
  assert.equal(blocks.length, messages.length);
  assert.deepEqual(blocks.map((b) => b.tokens), estimate.perMessage);
  assert.equal(Number(await page.getAttribute("#gauge", "data-total")), estimate.total);
  assert.equal(Number(await page.getAttribute("#gauge", "data-tokens")), compactor.check(messages).tokens);
  const chart = await page.$$eval("#chart .bar", (bs) => Object.fromEntries(bs.map((b) => [b.dataset.kind, Number(b.querySelector(".v").textContent.replace(/,/g, ""))])));
  for (const [kind, value] of Object.entries(chart)) assert.equal(value, estimate.byKind[kind], kind);
  const kinds = new Set(blocks.map((b) => b.kind));
  for (const k of ["user", "tool-call", "tool-result"]) assert.ok(kinds.has(k), k);
  assert.equal(await firstKept(page), compactor.plan(messages).kept[0]);
  // The summary request's cost in each mode, as plan().cost reports it.
  const { cost } = compactor.plan(messages);
  const n = (x) => x.toLocaleString("en-US");
  assert.equal(await page.textContent('[data-stat="summary cost"] .stat-v'), `continue ~${n(cost.continue.inputEquivalents)} · transcript ~${n(cost.transcript.inputEquivalents)}`);
  // The cache points are where the package's Session would put them.
  const session = Session.fromSessionFile(sampleText, "claude-code", { ...defaults, summarize: "extractive" });
  const points = session.render({ cacheControl: false }).cachePoints;
  assert.ok(points.length >= 1);
  const marked = await page.$$eval("#timeline .msg.cache", (ms) => ms.map((m) => Number(m.dataset.index)));
  assert.deepEqual(marked.sort((a, b) => a - b), points.map((p) => p.index).sort((a, b) => a - b));
  await page.screenshot({ path: join(shots, "1-sample.png") });

  // A Claude Code subagent transcript (every line a sidechain) loads the same way.
  const sidechain = sampleText
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const entry = JSON.parse(line);
      if ("isSidechain" in entry) Object.assign(entry, { isSidechain: true, agentId: "a1b2c3" });
      return JSON.stringify(entry);
    })
    .join("\n");
  await page.setInputFiles("#file", { name: "agent-a1b2c3.jsonl", mimeType: "text/plain", buffer: Buffer.from(sidechain) });
  await page.waitForFunction(() => /^agent-a1b2c3\.jsonl: claude-code session/.test(document.getElementById("status").textContent), undefined, T);
  assert.equal(Number(await page.getAttribute("#timeline", "data-count")), importSession(sidechain, "claude-code").messages.length);
  assert.deepEqual(errors, []);
  await page.close();
});

test("changing the window moves the planned cut as the package's plan does", async () => {
  const { page, errors } = await open();
  await loadSample(page);
  const { messages } = importSession(sampleText, "claude-code");
  const planAt = (contextWindow) => new Compactor({ ...defaults, contextWindow, summarize: "extractive" }).plan(messages);
  const before = await firstKept(page);
  assert.equal(before, planAt(3000).kept[0]);
  const expected = planAt(8000).kept[0];
  assert.notEqual(expected, before, "the fixture's cut moves between these windows");
  await page.fill("#window", "8000");
  await page.waitForFunction((n) => Number(document.getElementById("timeline").dataset.firstKept) === n, expected, T);
  await page.screenshot({ path: join(shots, "2-window-8000.png") });

  // An exact tokenizer: the rank table loads in the worker and the counts follow.
  const exact = new Compactor({ ...defaults, contextWindow: 8000, tokenizer: "o200k_base", summarize: "extractive" }).estimate(messages);
  await page.selectOption("#tokenizer", "o200k_base");
  await page.waitForFunction((t) => Number(document.getElementById("gauge").dataset.total) === t, exact.total, T);
  const tokens = await page.$$eval("#timeline .msg", (ms) => ms.map((m) => Number(m.dataset.tokens)));
  assert.deepEqual(tokens, exact.perMessage);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the timeline works with the keyboard: move, open a message, close", async () => {
  const { page, errors } = await open();
  await loadSample(page);
  const { messages } = importSession(sampleText, "claude-code");
  // Tab from the controls reaches the timeline; focusing it selects the first message.
  await page.focus("#timeline");
  assert.equal(await page.$eval("#timeline .msg.active", (m) => Number(m.dataset.index)), 0);
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("j");
  await page.keyboard.press("ArrowUp");
  assert.equal(await page.$eval("#timeline .msg.active", (m) => Number(m.dataset.index)), 1);
  assert.equal(await page.getAttribute("#timeline", "aria-activedescendant"), "msg-active");
  await page.keyboard.press("End");
  const last = messages.length - 1;
  assert.equal(await page.$eval("#timeline .msg.active", (m) => Number(m.dataset.index)), last);
  await page.keyboard.press("Enter");
  await page.waitForSelector("#detail[open]", T);
  assert.deepEqual(JSON.parse(await page.textContent("#detail-text")), messages[last]);
  assert.match(await page.textContent("#detail-title"), new RegExp(`^Message #${last}`));
  await page.screenshot({ path: join(shots, "2b-message-detail.png") });
  await page.keyboard.press("Escape");
  await page.waitForFunction(() => !document.getElementById("detail").open, undefined, T);
  assert.equal(await page.evaluate(() => document.activeElement.id), "timeline");
  await page.keyboard.press("Home");
  assert.equal(await page.$eval("#timeline .msg.active", (m) => Number(m.dataset.index)), 0);
  // A click opens a message too.
  await page.click("#timeline .msg[data-index='2']");
  await page.waitForSelector("#detail[open]", T);
  assert.deepEqual(JSON.parse(await page.textContent("#detail-text")), messages[2]);
  await page.click("#detail-close");
  await page.waitForFunction(() => !document.getElementById("detail").open, undefined, T);
  assert.deepEqual(errors, []);
  await page.close();
});

test("extractive compaction shrinks the context and shows the summary; undo restores it", async () => {
  const { page, errors } = await open();
  await loadSample(page);
  const count = await page.$$eval("#timeline .msg", (m) => m.length);
  await page.click("#compact");
  await state(page, ["compacted", "error"]);
  assert.equal(await page.evaluate(() => document.body.dataset.state), "compacted", await page.textContent("#status"));
  const before = Number(await page.getAttribute("#saved", "data-before"));
  const after = Number(await page.getAttribute("#saved", "data-after"));
  assert.ok(after < before, `${after} < ${before}`);
  assert.ok((await page.$$("#timeline .msg[data-kind=summary]")).length >= 1);
  assert.match(await page.textContent("#summary-text"), /\S/);
  // The summary's fact retention, and one list item per fact it lost.
  const [, kept, total] = (await page.textContent("#retention")).match(/Facts kept: ([\d,]+) of ([\d,]+)/);
  const n = (s) => Number(s.replaceAll(",", ""));
  assert.ok(n(total) > 0);
  assert.equal(await page.$$eval("#summary-lost li", (l) => l.length), n(total) - n(kept));
  assert.ok((await page.$$eval("#timeline .msg", (m) => m.length)) < count);
  await page.screenshot({ path: join(shots, "3-compacted.png"), fullPage: false });

  const download = page.waitForEvent("download", T);
  await page.click("#export");
  const jsonl = readFileSync(await (await download).path(), "utf8");
  assert.match(jsonl.split("\n")[0], /"type":"session"/);
  assert.match(jsonl, /"type":"compaction"/);

  await page.click("#undo");
  await state(page, ["loaded"]);
  assert.equal(await page.$$eval("#timeline .msg", (m) => m.length), count);
  assert.equal(await page.$$eval("#timeline .msg[data-kind=summary]", (m) => m.length), 0);
  // Undo is a branch of the session at the entry before the compaction: the exported log ends
  // with the branch entry, and the compaction is not in it.
  const again = page.waitForEvent("download", T);
  await page.click("#export");
  const branched = readFileSync(await (await again).path(), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(branched.some((e) => e.type === "compaction"), false);
  assert.equal(branched.at(-1).type, "branch");
  assert.equal(branched.filter((e) => e.type === "message").length, count);
  await page.screenshot({ path: join(shots, "4-undone.png") });
  assert.deepEqual(errors, []);
  await page.close();
});

test("an OpenAI-compatible endpoint writes the summary, with the custom instructions", async () => {
  const requests = [];
  const api = createServer((req, res) => {
    const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type, authorization" };
    if (req.method === "OPTIONS") return res.writeHead(204, cors).end();
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      requests.push({ url: req.url, auth: req.headers.authorization, body: JSON.parse(body) });
      res.writeHead(200, { ...cors, "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content: "The user started Phoenix and debugged xterm.js scrolling." } }] }));
    });
  });
  await new Promise((r) => api.listen(0, "127.0.0.1", r));
  const { page, errors } = await open();
  try {
    await loadSample(page);
    await page.selectOption("#summarizer", "openai");
    await page.fill("#api-url", `http://127.0.0.1:${api.address().port}/v1`);
    await page.fill("#api-key", "sk-test");
    await page.fill("#api-model", "tiny-model");
    await page.fill("#instructions", "Focus on the terminal bug");
    await page.click("#compact");
    await state(page, ["compacted", "error"]);
    assert.equal(await page.evaluate(() => document.body.dataset.state), "compacted", await page.textContent("#status"));
    assert.match(await page.textContent("#summary-text"), /debugged xterm\.js scrolling/);
    assert.ok(requests.length >= 1);
    assert.equal(requests[0].url, "/v1/chat/completions");
    assert.equal(requests[0].auth, "Bearer sk-test");
    assert.equal(requests[0].body.model, "tiny-model");
    assert.match(JSON.stringify(requests[0].body.messages), /Focus on the terminal bug/);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    await new Promise((r) => api.close(r));
  }
});

test("a malformed file shows an error naming its line", async () => {
  const { page, errors } = await open();
  const bad = '{"type":"session","id":"x","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}\n{"type":"message", oops}\n';
  await page.setInputFiles("#file", { name: "broken.jsonl", mimeType: "text/plain", buffer: Buffer.from(bad) });
  await state(page, ["error"]);
  const status = await page.textContent("#status");
  assert.match(status, /broken\.jsonl/);
  assert.match(status, /line 2/);
  assert.match(status, /not valid JSON/);
  await page.screenshot({ path: join(shots, "5-error.png") });

  // A JSON array that does not parse names its line too.
  await page.setInputFiles("#file", { name: "broken.json", mimeType: "application/json", buffer: Buffer.from('[\n{"role":"user","content":"hi"},\n{"role":\n') });
  await page.waitForFunction(() => /broken\.json:/.test(document.getElementById("status").textContent), undefined, T);
  assert.match(await page.textContent("#status"), /line \d/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a file cut off mid-line loads up to its last complete line, and the page says which line it left out", async () => {
  const { page, errors } = await open();
  // A Claude Code file still being written: its last line is half there.
  const torn = sampleText.slice(0, sampleText.trimEnd().lastIndexOf("\n") + 40);
  const expected = importSession(torn, "claude-code");
  assert.equal(expected.warnings.length, 1);
  await page.setInputFiles("#file", { name: "torn.jsonl", mimeType: "text/plain", buffer: Buffer.from(torn) });
  await state(page, ["loaded"]);
  const status = await page.textContent("#status");
  assert.ok(status.includes(expected.warnings[0]), status);
  assert.equal(await page.getAttribute("#status", "class"), "status warning");
  assert.equal(Number(await page.getAttribute("#timeline", "data-count")), expected.messages.length);

  // The package's own log, torn the same way.
  const session = new Session({ contextWindow: 200_000, summarize: "extractive" });
  session.append(expected.messages);
  const log = session.toJSONL();
  session.free();
  const tornLog = log.slice(0, log.trimEnd().lastIndexOf("\n") + 30);
  const reread = Session.fromJSONL(tornLog, { contextWindow: 200_000, summarize: "extractive" });
  const line = reread.tornLine.line;
  reread.free();
  await page.setInputFiles("#file", { name: "torn-log.jsonl", mimeType: "text/plain", buffer: Buffer.from(tornLog) });
  await page.waitForFunction(() => /torn-log\.jsonl:/.test(document.getElementById("status").textContent), undefined, T);
  assert.match(await page.textContent("#status"), new RegExp(`Warning: line ${line}: incomplete last line left out`));

  // A whole file has no warning.
  await page.setInputFiles("#file", { name: "whole.jsonl", mimeType: "text/plain", buffer: Buffer.from(sampleText) });
  await page.waitForFunction(() => /whole\.jsonl:/.test(document.getElementById("status").textContent), undefined, T);
  assert.doesNotMatch(await page.textContent("#status"), /Warning/);
  assert.deepEqual(errors, []);
  await page.close();
});

function bigSession() {
  const messages = [];
  const filler = "The quick brown fox reads src/lib.rs and runs cargo test; ".repeat(14);
  let size = 0;
  for (let i = 0; size < 10_000_000; i++) {
    const id = `call_${i}`;
    const turn = [
      { role: "user", content: `Step ${i}: ${filler}` },
      { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/f${i}.rs` }) } }] },
      { role: "tool", tool_call_id: id, content: `fn f${i}() {}\n${filler}${filler}` },
      { role: "assistant", content: `Done with step ${i}. ${filler}` },
    ];
    for (const m of turn) size += JSON.stringify(m).length;
    messages.push(...turn);
  }
  return messages;
}

test("a 10 MB session is read and parsed in the worker, and the timeline draws only the rows in view", { timeout: 90_000 }, async () => {
  const { page, errors } = await open();
  const messages = bigSession();
  const buffer = Buffer.from(JSON.stringify(messages));
  assert.ok(buffer.length >= 10_000_000);
  // Served, then dropped on the page as a File (setInputFiles would push 10 MB through the
  // DevTools protocol, which itself stalls the renderer).
  mkdirSync(join(root, "tests/.tmp"), { recursive: true });
  writeFileSync(join(root, "tests/.tmp/big.json"), buffer);
  await page.evaluate(async () => {
    const blob = await (await fetch("/tests/.tmp/big.json")).blob();
    window.__bigFile = new File([blob], "big.json", { type: "application/json" });
  });
  // What would block the page is structural: reading or parsing the 10 MB on the main thread, or
  // drawing one element per message. The page must hand the File to the worker unread, and draw
  // only the rows in view. (A timed check of the main thread's gaps flaked on a loaded machine.)
  await page.evaluate(() => {
    window.__mainReads = [];
    const note = (what, size) => window.__mainReads.push(`${what} of ${size}`);
    for (const name of ["text", "arrayBuffer", "bytes", "stream"]) {
      const original = Blob.prototype[name];
      if (original)
        Blob.prototype[name] = function (...args) {
          note(`Blob.${name}`, this.size);
          return original.apply(this, args);
        };
    }
    for (const name of ["readAsText", "readAsArrayBuffer", "readAsDataURL", "readAsBinaryString"]) {
      const original = FileReader.prototype[name];
      FileReader.prototype[name] = function (blob, ...args) {
        note(`FileReader.${name}`, blob?.size);
        return original.call(this, blob, ...args);
      };
    }
    const parse = JSON.parse;
    JSON.parse = function (text, ...args) {
      if (typeof text === "string" && text.length > 1_000_000) note("JSON.parse", text.length);
      return parse.call(this, text, ...args);
    };
  });
  const sawProgress = page.waitForFunction(() => !document.getElementById("progress").hidden, undefined, T);
  await page.evaluate(() => {
    const dataTransfer = new DataTransfer();
    dataTransfer.items.add(window.__bigFile);
    document.getElementById("drop").dispatchEvent(new DragEvent("drop", { dataTransfer, bubbles: true, cancelable: true }));
  });
  await sawProgress;
  await page.waitForFunction(() => ["loaded", "error"].includes(document.body.dataset.state) && document.getElementById("timeline").dataset.complete === "true", undefined, { timeout: 60_000 });
  assert.equal(await page.evaluate(() => document.body.dataset.state), "loaded", await page.textContent("#status"));
  assert.equal(Number(await page.getAttribute("#timeline", "data-count")), messages.length);
  assert.deepEqual(await page.evaluate(() => window.__mainReads), [], "the main thread read the file itself");
  const drawn = await page.$$eval("#timeline .msg", (rows) => rows.length);
  assert.ok(drawn > 0 && drawn < 500, `${drawn} rows drawn for ${messages.length} messages`);
  await page.screenshot({ path: join(shots, "6-large.png") });
  // The timeline is virtualized: scrolling to the end draws the last message.
  await page.$eval("#main", (m) => (m.scrollTop = m.scrollHeight));
  await page.waitForSelector(`#timeline .msg[data-index="${messages.length - 1}"]`, T);
  await page.screenshot({ path: join(shots, "6-large-end.png") });
  assert.deepEqual(errors, []);
  await page.close();
});

test("chat mode: the scripted agent's session compacts itself live", async () => {
  const { page, errors } = await open();
  // The chat session takes the window of the controls.
  await page.fill("#window", "3500");
  await page.click("#chat-toggle");
  await page.waitForSelector("#chat:not([hidden])", T);
  const threshold = new Compactor({ contextWindow: 3500, reserveTokens: 500, keepRecentTokens: 600, summarize: "extractive" }).check([]).threshold;
  await page.waitForFunction((t) => Number(document.getElementById("gauge").dataset.threshold) === t, threshold, T);
  for (const text of ["Fix the parser", "Now add tests for the tokenizer", "Refactor the session loader", "Check the CLI flags", "Run the whole suite"]) {
    const entries = await page.evaluate(() => document.getElementById("status").textContent);
    await page.fill("#chat-input", text);
    await page.press("#chat-input", "Enter");
    await page.waitForFunction((e) => document.getElementById("status").textContent !== e, entries, T);
  }
  const compactions = Number(await page.getAttribute("#chat", "data-compactions"));
  assert.ok(compactions >= 1, `compactions: ${compactions}`);
  assert.ok((await page.$$("#timeline .msg[data-kind=summary]")).length >= 1);
  assert.ok((await page.$$("#timeline .msg[data-kind=tool-call]")).length >= 1);
  await page.screenshot({ path: join(shots, "7-chat.png") });
  assert.deepEqual(errors, []);
  await page.close();
});

/** Loads `text` through the file input as `name`; resolves when the page is done with it. */
async function loadFile(page, name, text) {
  await page.setInputFiles("#file", { name, mimeType: "text/plain", buffer: Buffer.from(text) });
  await state(page, ["loaded", "error"]);
}
const gauge = (page) => page.$eval("#gauge", (g) => ({ ...g.dataset, text: document.getElementById("gauge-text").textContent }));

test("the window is the model's when one is known, and the page says which window it uses", async () => {
  const { page, errors } = await open();
  // The sample shows in 3,000 tokens (as the demo does), said so; the window is the sample's only.
  await loadSample(page);
  assert.deepEqual([Number((await gauge(page)).window), (await gauge(page)).windowSource], [3000, "set"]);
  // A real pi session names its model (claude-sonnet-4-5): its 200,000-token window, no compaction due.
  const piText = readFileSync(join(root, "tests/fixtures/pi/large-session.jsonl"), "utf8");
  await loadFile(page, "large-session.jsonl", piText);
  const pi = importSession(piText, "pi").messages;
  const at = (options) => new Compactor({ reserveTokens: 500, trigger: { fraction: 0.8 }, summarize: "extractive", ...options }).check(pi);
  let g = await gauge(page);
  assert.equal(Number(g.window), 200_000);
  assert.equal(g.windowSource, "file");
  assert.equal(Number(g.threshold), at({ contextWindow: 200_000 }).threshold);
  assert.equal(at({ contextWindow: 200_000 }).shouldCompact, false);
  assert.doesNotMatch(g.text, /compaction due/);
  assert.match(g.text, /window 200,000 \(claude-sonnet-4-5, the model in the file\)/);
  assert.equal(await page.textContent('#stats [data-stat="window"] .stat-v'), "200,000");
  await page.screenshot({ path: join(shots, "8-model-window.png") });

  // A model typed in the field: its window, said so.
  await page.fill("#model", "gpt-4o");
  await page.waitForFunction(() => document.getElementById("gauge").dataset.windowSource === "model", undefined, T);
  g = await gauge(page);
  assert.equal(Number(g.threshold), at({ model: "gpt-4o" }).threshold);
  assert.match(g.text, new RegExp(`window ${Number(g.window).toLocaleString("en-US")} \\(the model gpt-4o\\)`));
  // A window typed in the field wins, and says it was set.
  await page.fill("#window", "3000");
  await page.waitForFunction(() => document.getElementById("gauge").dataset.windowSource === "set", undefined, T);
  assert.match((await gauge(page)).text, /compaction due · window 3,000 \(set\)/);

  // The sample loaded through the file input (not the sample button) names claude-opus-4-6.
  await page.fill("#model", "");
  await page.fill("#window", "");
  await loadFile(page, "claude-code-tool-heavy.jsonl", sampleText);
  g = await gauge(page);
  assert.deepEqual([Number(g.window), g.windowSource], [200_000, "file"]);
  assert.match(g.text, /claude-opus-4-6, the model in the file/);
  // Messages that name no model: the default window, said so.
  const plain = JSON.stringify([{ role: "user", content: "hello" }, { role: "assistant", content: "hi" }]);
  await loadFile(page, "plain.json", plain);
  g = await gauge(page);
  assert.deepEqual([Number(g.window), g.windowSource], [200_000, "default"]);
  assert.match(g.text, /window 200,000 \(the default: no model known\)/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a failed load clears the previous session: no stats, Compact, Undo and Export disabled", async () => {
  const { page, errors } = await open();
  await loadSample(page);
  assert.equal(await page.isEnabled("#compact"), true);
  await page.setInputFiles("#file", { name: "broken.jsonl", mimeType: "text/plain", buffer: Buffer.from('{"type":"session","id":"x"}\n{oops\n') });
  await state(page, ["error"]);
  assert.match(await page.textContent("#status"), /broken\.jsonl/);
  assert.equal(await page.isHidden("#overview"), true);
  for (const id of ["#compact", "#export", "#undo"]) assert.equal(await page.isDisabled(id), true, id);
  assert.equal(await page.$$eval("#timeline .msg", (m) => m.length), 0);
  assert.equal(await page.textContent("#gauge-text"), "no session");
  await page.screenshot({ path: join(shots, "9-failed-load.png") });
  // The next good file loads as usual.
  await page.click("#sample");
  await state(page, ["loaded"]);
  assert.equal(await page.isEnabled("#export"), true);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the page's own exported log reloads as the package's session log, compaction included", async () => {
  const { page, errors } = await open();
  await loadSample(page);
  await page.click("#compact");
  await state(page, ["compacted", "error"]);
  const live = await page.$$eval("#timeline .msg", (m) => m.length);
  const download = page.waitForEvent("download", T);
  await page.click("#export");
  const jsonl = readFileSync(await (await download).path(), "utf8");
  await loadFile(page, "claude-code-tool-heavy.compacted.jsonl", jsonl);
  const status = await page.textContent("#status");
  assert.equal(await page.evaluate(() => document.body.dataset.state), "loaded", status);
  const session = Session.fromJSONL(jsonl, { ...defaults, summarize: "extractive" });
  const rendered = session.render({ cacheControl: false }).messages;
  session.free();
  assert.equal(rendered.length, live);
  assert.match(status, new RegExp(`^claude-code-tool-heavy\\.compacted\\.jsonl: context-compaction session log, ${live} messages \\(15 in the file, 1 recorded compactions\\)`));
  assert.equal(Number(await page.getAttribute("#timeline", "data-count")), live);
  assert.ok((await page.$$("#timeline .msg[data-kind=summary]")).length >= 1);
  // Exported again, it is the same log: the reload continued it, it did not import a copy.
  const again = page.waitForEvent("download", T);
  await page.click("#export");
  const ids = (text) => text.trim().split("\n").map((l) => JSON.parse(l).id);
  assert.deepEqual(ids(readFileSync(await (await again).path(), "utf8")), ids(jsonl));
  assert.deepEqual(errors, []);
  await page.close();
});
