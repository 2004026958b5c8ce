// The package in headless Chromium: the www/ page (plain ES modules + import map, `init()`), and a
// Vite build of an app that imports the packed package with no plugin and no init call.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { countTokens, estimateTokens } from "context-compaction";
import { serve, launchChromium } from "./serve.mjs";
import { root, consumerWith } from "./pack.mjs";

let browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

async function openPage(url, ready) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  await page.goto(url);
  await page.waitForFunction(ready, undefined, { timeout: 30_000 });
  assert.deepEqual(errors, []);
  return page;
}

test("www page renders exact and estimated counts equal to Node's", async () => {
  const server = await serve(root);
  try {
    const page = await openPage(`${server.url}/www/counter.html`, () => document.body.dataset.ready);
    assert.equal(await page.textContent("#status"), "ready");
    const text = await page.inputValue("#text");
    const cell = (name) => page.textContent(`tr[data-tokenizer="${name}"] td:last-child`);
    assert.equal(Number(await cell("heuristic")), estimateTokens(text));
    assert.equal(Number(await cell("o200k_base")), countTokens(text, "o200k_base"));
    assert.equal(Number(await cell("cl100k_base")), countTokens(text, "cl100k_base"));

    // Typing re-renders.
    await page.fill("#text", "hello world");
    assert.equal(Number(await cell("o200k_base")), 2);
    await page.close();
  } finally {
    await server.close();
  }
});

test("a Vite build of the packed package works with no plugin and no init", { timeout: 180_000 }, async () => {
  const app = consumerWith("vite-app", join(root, "tests/vite-app"));
  execFileSync(join(root, "node_modules/.bin/vite"), ["build", "--logLevel", "warn", "--outDir", "dist", app], {
    cwd: app,
    stdio: "inherit",
  });
  const server = await serve(join(app, "dist"));
  try {
    const page = await openPage(`${server.url}/`, () => document.getElementById("out").textContent !== "loading");
    const data = await page.$eval("#out", (o) => ({ text: o.textContent, ...o.dataset }));
    assert.equal(data.text, "ready");
    assert.equal(data.before, "ENCODING_UNAVAILABLE", "exact counting before loadEncoding is a clear error");
    const text = "Vite bundles this page; the wasm and the rank table are emitted as assets. 你好 🚀";
    assert.equal(Number(data.exact), countTokens(text, "o200k_base"));
    assert.equal(Number(data.estimate), estimateTokens(text));
    await page.close();
  } finally {
    await server.close();
  }
});
