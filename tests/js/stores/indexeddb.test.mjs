// The IndexedDB store (js/stores/indexeddb.mjs) in headless Chromium: every contract case of
// cases.mjs run in a page (one subtest each, a fresh database per case), then two tabs appending
// to one conversation at once, then tabs closed in the middle of a large append. The page is served
// with the repository root as static files; an import map resolves "idb" to node_modules. Chromium
// missing is a failure, not a skip.
import { describe, it, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { serve, launchChromium } from "../serve.mjs";
import { contractCases } from "./cases.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const PAGE = "/__indexeddb-store-test.html";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The page: an assert shim with what cases.mjs uses, the cases and the store, under window.idbTest.
const html = `<!doctype html>
<meta charset="utf-8">
<title>indexeddb store</title>
<script type="importmap">{ "imports": { "idb": "/node_modules/idb/build/index.js" } }</script>
<script type="module">
const show = (v) => { const s = typeof v === "string" ? JSON.stringify(v) : String(JSON.stringify(v) ?? v); return s.length > 200 ? s.slice(0, 200) + "…" : s; };
function same(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}
const assert = {
  equal(a, b, m) { if (!Object.is(a, b)) throw new Error(m ?? "expected " + show(a) + " to equal " + show(b)); },
  deepEqual(a, b, m) { if (!same(a, b)) throw new Error(m ?? "expected " + show(a) + " to deep-equal " + show(b)); },
  match(s, re, m) { if (typeof s !== "string" || !re.test(s)) throw new Error(m ?? "expected " + show(s) + " to match " + re); },
  async rejects(p, m) {
    try { await (typeof p === "function" ? p() : p); } catch { return; }
    throw new Error(m ?? "expected a rejection");
  },
};
try {
  const [{ indexedDBStore }, { contractCases }] = await Promise.all([
    import("/js/stores/indexeddb.mjs"),
    import("/tests/js/stores/cases.mjs"),
  ]);
  const cases = new Map(contractCases(assert));
  let fresh = 0;
  window.idbTest = {
    titles: () => [...cases.keys()],
    store: (name) => indexedDBStore({ name }),
    async runCase(title) {
      const store = indexedDBStore({ name: "case-" + Date.now().toString(36) + "-" + fresh++ });
      try {
        await cases.get(title)(store);
        return { ok: true };
      } catch (e) {
        return { ok: false, error: String(e?.stack ?? e) };
      } finally {
        await store.close();
      }
    },
  };
  document.body.dataset.ready = "ok";
} catch (e) {
  document.body.dataset.error = String(e?.stack ?? e);
  document.body.dataset.ready = "error";
}
</script>`;

// Started by the first test that needs them; a failure to start (no Chromium) fails every test.
let started;
const start = () =>
  (started ??= (async () => {
    const server = await serve(root);
    try {
      return { server, browser: await launchChromium() };
    } catch (e) {
      await server.close();
      throw e;
    }
  })());
after(async () => {
  const s = await started?.catch(() => null);
  await s?.browser.close();
  await s?.server.close();
});

/** A browser context (one origin's storage, shared by its tabs) serving the test page. */
async function newContext() {
  const { server, browser } = await start();
  const context = await browser.newContext();
  await context.route(`${server.url}${PAGE}`, (route) =>
    route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: html }),
  );
  return context;
}

/** A tab of `context` with the page loaded; `errors` collects its uncaught errors. */
async function openTab(context) {
  const { server } = await start();
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  await page.goto(`${server.url}${PAGE}`);
  await page.waitForFunction(() => document.body?.dataset.ready, undefined, { timeout: 15_000 });
  const ready = await page.evaluate(() => document.body.dataset);
  assert.equal(ready.ready, "ok", `the page failed to load its modules: ${ready.error}`);
  return { page, errors };
}

describe("store contract: indexeddb (headless Chromium)", () => {
  let opened;
  const page = () =>
    (opened ??= (async () => {
      const context = await newContext();
      return { context, tab: await openTab(context) };
    })()).then((o) => o.tab);
  after(async () => {
    await (await opened?.catch(() => null))?.context.close();
  });

  const titles = contractCases(assert).map(([title]) => title);
  it("the page holds the same cases", async () => {
    const tab = await page();
    assert.deepEqual(await tab.page.evaluate(() => window.idbTest.titles()), titles);
  });
  for (const title of titles) {
    it(title, async () => {
      const tab = await page();
      const result = await tab.page.evaluate((t) => window.idbTest.runCase(t), title);
      assert.ok(result.ok, result.error);
    });
  }
  it("raised no uncaught error in the page", async () => {
    const tab = await page();
    assert.deepEqual(tab.errors.map(String), []);
  });
});

describe("indexeddb store across tabs", () => {
  it("two tabs appending to one conversation with retries: every batch exactly once", async (t) => {
    const context = await newContext();
    try {
      const tabs = await Promise.all([openTab(context), openTab(context)]);
      const db = `tabs-${Date.now().toString(36)}`;
      const batches = 40;
      const size = 3;
      const conflicts = await Promise.all(
        tabs.map(({ page }, n) =>
          page.evaluate(
            async ({ db, name, batches, size }) => {
              const store = window.idbTest.store(db);
              const header = JSON.stringify({ type: "session", id: "shared" });
              let version = 0;
              let conflicts = 0;
              for (let k = 0; k < batches; k++) {
                const lines = Array.from({ length: size }, (_, j) => ({
                  id: `${name}-${k}-${j}`,
                  line: JSON.stringify({ tab: name, batch: k, j }),
                }));
                for (;;) {
                  const r = await store.append("shared", { header, lines }, version);
                  version = r.version;
                  if (r.ok) break;
                  conflicts++;
                }
              }
              await store.close();
              return conflicts;
            },
            { db, name: `tab${n}`, batches, size },
          ),
        ),
      );
      t.diagnostic(`conflicts retried: ${conflicts.join(" + ")}`);

      const log = await tabs[0].page.evaluate(async (db) => {
        const store = window.idbTest.store(db);
        const [all, live] = [await store.read("shared", 0), await store.load("shared")];
        await store.close();
        return { all, live };
      }, db);
      assert.equal(log.all.version, 2 * batches * size);
      assert.equal(log.all.lines.length, log.all.version);
      assert.deepEqual(log.live, log.all);
      // Each batch once, its lines together and in order; each tab's batches in its own order.
      const seen = new Map();
      const lines = log.all.lines.map((l) => JSON.parse(l));
      for (let i = 0; i < lines.length; i += size) {
        const { tab, batch } = lines[i];
        assert.deepEqual(lines.slice(i, i + size), Array.from({ length: size }, (_, j) => ({ tab, batch, j })));
        assert.equal(seen.get(tab) ?? -1, batch - 1, `${tab}'s batches in order`);
        seen.set(tab, batch);
      }
      assert.deepEqual([...seen.values()], [batches - 1, batches - 1]);
      for (const { errors } of tabs) assert.deepEqual(errors.map(String), []);
    } finally {
      await context.close();
    }
  });

  it("a tab closed in the middle of a large append leaves the whole batch or none of it", async (t) => {
    const context = await newContext();
    try {
      const reader = await openTab(context);
      const db = `closed-${Date.now().toString(36)}`;
      const n = 4000;
      // Starts the append in `page` (not awaited) and resolves to how long the page's own call took
      // when `wait` is set (to measure an uninterrupted append).
      const startAppend = (page, { id, from, wait }) =>
        page.evaluate(
          async ({ db, id, from, n, wait }) => {
            const store = window.idbTest.store(db);
            const pad = "p".repeat(1000);
            const lines = Array.from({ length: n }, (_, i) => ({
              id: `b${from}-${i}`,
              line: JSON.stringify({ from, i, pad }),
            }));
            const header = JSON.stringify({ type: "session", id });
            const t0 = performance.now();
            const pending = store.append(id, { header, lines }, from);
            if (!wait) return 0;
            await pending;
            await store.close();
            return performance.now() - t0;
          },
          { db, id, from, n, wait },
        );
      const inspect = () =>
        reader.page.evaluate(async (db) => {
          const store = window.idbTest.store(db);
          const [all, live] = [await store.read("victim", 0), await store.load("victim")];
          await store.close();
          return { version: all?.version ?? 0, lines: all?.lines ?? [], live };
        }, db);

      const took = await startAppend(reader.page, { id: "timing", from: 0, wait: true });
      t.diagnostic(`an uninterrupted append of ${n} lines took ${Math.round(took)} ms`);
      let version = 0;
      const outcomes = [];
      for (const fraction of [0, 0.2, 0.4, 0.6, 0.8, 1.2]) {
        const writer = await openTab(context);
        await startAppend(writer.page, { id: "victim", from: version, wait: false });
        await sleep(took * fraction);
        await writer.page.close();
        const log = await inspect();
        assert.equal(log.lines.length, log.version, "version == lines");
        assert.ok(log.version === version || log.version === version + n, `whole batch or nothing: ${log.version}`);
        if (log.version > 0) {
          assert.deepEqual(log.live, { header: log.live.header, lines: log.lines, version: log.version });
        }
        const batch = log.lines.slice(version).map((l) => JSON.parse(l));
        batch.forEach((e, i) => assert.deepEqual([e.from, e.i], [version, i]));
        outcomes.push(log.version === version ? "none" : "whole");
        version = log.version;
      }
      t.diagnostic(`outcomes by close time: ${outcomes.join(", ")}`);
      // The conversation stays usable by the other tab.
      const after = await reader.page.evaluate(
        async ({ db, version }) => {
          const store = window.idbTest.store(db);
          const header = JSON.stringify({ type: "session", id: "victim" });
          const r = await store.append("victim", { header, lines: [{ id: "after", line: "{}" }] }, version);
          await store.close();
          return r;
        },
        { db, version },
      );
      assert.deepEqual(after, { ok: true, version: version + 1 });
      assert.deepEqual(reader.errors.map(String), []);
    } finally {
      await context.close();
    }
  });
});
