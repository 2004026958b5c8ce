// The Session agent loop of session-loop.mjs in headless Chromium: Vite bundles tests/session-app
// (the package's browser entry, the AI SDK and its mock model, the real pi session) and the page
// reports the loop's numbers, checked like the Node run's.
import { test } from "node:test";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { serve, launchChromium } from "./serve.mjs";
import { root } from "./pack.mjs";
import { assertLoop } from "./session-checks.mjs";

test("AI SDK generateText loop with a Session behind prepareStep, in headless Chromium", { timeout: 300_000 }, async (t) => {
  execFileSync(join(root, "node_modules/.bin/vite"), ["build", "--config", join(root, "tests/session-app/vite.config.mjs")], {
    cwd: root,
    stdio: "inherit",
  });
  const server = await serve(join(root, "tests/.tmp/session-app"));
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e));
    await page.goto(`${server.url}/`);
    await page.waitForFunction(() => document.getElementById("out").textContent !== "loading", undefined, { timeout: 240_000 });
    const status = await page.textContent("#out");
    if (status !== "done") throw new Error(status);
    const r = JSON.parse(await page.$eval("#out", (o) => o.dataset.result));
    t.diagnostic(`browser: turns ${r.turns}, requests ${r.requests}, compactions ${r.compactions}, background starts ${r.backgroundStarts}, largest prompt ${r.maxTokens} tokens`);
    assertLoop(r);
    if (errors.length) throw errors[0];
  } finally {
    await browser.close();
    await server.close();
  }
});
