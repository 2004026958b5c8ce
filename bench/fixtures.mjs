// The repository's real sessions (tests/fixtures): reading the file, estimating and
// planning, against pi's own functions on its own session files.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Compactor, importSession } from "../js/node.mjs";
import { time } from "./peers.mjs";

const piDist = (path) => fileURLToPath(new URL(`./node_modules/@mariozechner/pi-coding-agent/dist/${path}`, import.meta.url));
const pi = await import(piDist("core/compaction/compaction.js"));
const piSession = await import(piDist("core/session-manager.js"));

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/** Every session fixture: `{ name, kind, text }`. */
export function sessionFixtures() {
  const out = [];
  for (const kind of ["pi", "claude-code"]) {
    const dir = here(`../tests/fixtures/${kind}/`);
    for (const f of readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort()) out.push({ name: `tests/fixtures/${kind}/${f}`, kind, text: readFileSync(dir + f, "utf8") });
  }
  return out;
}

/** Per fixture: its size, and the times of reading, estimating and planning it (and pi's on pi files). */
export function fixtureRows(runs = 15) {
  return sessionFixtures().map(({ name, kind, text }) => {
    const imported = importSession(text, kind);
    const messages = imported.messages;
    const options = { contextWindow: 32_000, keepRecentTokens: 8_000, preset: kind === "pi" ? "pi" : "claude-code", format: imported.format, summarize: "extractive" };
    const warm = new Compactor(options);
    const row = {
      name,
      kind,
      bytes: Buffer.byteLength(text),
      messages: messages.length,
      tokens: warm.estimate(messages).total,
      import: time(() => importSession(text, kind), runs),
      planFresh: time(() => {
        const c = new Compactor(options);
        c.plan(messages);
        c.free();
      }, runs),
      planWarm: time(() => warm.plan(messages), runs),
    };
    warm.free();
    if (kind === "pi") {
      const settings = { ...pi.DEFAULT_COMPACTION_SETTINGS, enabled: true, keepRecentTokens: 8_000 };
      row.piRead = time(() => piSession.buildSessionContext(piSession.parseSessionEntries(text).filter((e) => e.type !== "session")), runs);
      const entries = piSession.parseSessionEntries(text).filter((e) => e.type !== "session");
      row.piPrepare = time(() => pi.prepareCompaction(entries, settings), runs);
    }
    return row;
  });
}
