// The fact-retention evaluation (`npm run eval`, and its short form in tests/js/quality.test.mjs):
// which facts of a real session survive into a summary. Facts are extracted here, in plain JS and
// independently of the package's own digest, by fixed rules; a text "keeps" a fact by the same
// lenient rule for every candidate (see `kept`). Nothing here calls a model.
//
// Kinds of fact, from the part of a session a summary replaces:
// - modified: paths given to Edit/Write/MultiEdit/NotebookEdit (Claude Code) or edit/write (pi);
// - read: paths given to Read (Claude Code) or read (pi) and not modified;
// - commands: distinct Bash (Claude Code) or bash (pi) commands, by their first line;
// - errors: failed tool results, by their informative lines (not "Exit code N", not progress);
// - requests: what the user typed (user text that is not a tool result, a task notification, a
//   local command's output, an interruption marker, a skill's inserted text or a bare slash
//   command such as `/mode`);
// - last: the last assistant text message;
// - pending: the open items of the latest TodoWrite / todowrite / update_plan call.
//
// Matching: the scored text as it is, and again with JSON string escapes (\" \\ \n ...) read as
// their characters (a model reads a tool call's JSON input so); texts lower-cased,
// backticks removed and whitespace collapsed. A path is kept when
// the text holds its last two components; any other fact when the text holds the first 40
// characters of one of its probes (a command's first line; an error's informative lines; a
// request's or message's first line of at least 12 characters, else its start).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Compactor, importSession, countTokens } from "../js/node.mjs";

export const KINDS = ["modified", "read", "commands", "errors", "requests", "last", "pending"];
const PROBE = 40;

// JSON string escapes are read as what they stand for: a model reads a tool call's JSON input so.
const unescape = (s) => String(s).replace(/\\(["\\\/nrt])/g, (_, c) => ({ n: "\n", r: "\r", t: "\t" })[c] ?? c);
const norm = (s) => String(s).toLowerCase().replaceAll("`", " ").replace(/\s+/g, " ").trim();

/** The two sets of sessions: the tuning set, and the held-out set the targets are stated on. */
export const SETS = ["held-out", "tuning"];

/**
 * Every real session the repository holds: `{ name, kind, set, text }`. The tuning set is
 * tests/fixtures/<kind>/ (the sessions the package was tuned on); the held-out set is
 * tests/fixtures/heldout/<kind>/ (never tuned on: see its README).
 */
export function sessions() {
  const root = fileURLToPath(new URL("../tests/fixtures/", import.meta.url));
  const out = [];
  for (const [set, dir] of [["held-out", "heldout/"], ["tuning", ""]]) {
    for (const kind of ["claude-code", "pi"]) {
      if (!existsSync(root + dir + kind)) continue;
      for (const file of readdirSync(root + dir + kind).filter((f) => f.endsWith(".jsonl")).sort()) {
        out.push({ name: `${dir}${kind}/${file}`, kind, set, text: readFileSync(`${root}${dir}${kind}/${file}`, "utf8") });
      }
    }
  }
  return out;
}

/** A message of either format as `{ role, texts, calls, results }`. */
function neutral(m) {
  const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : [];
  const out = { role: m.role === "toolResult" ? "tool" : m.role, texts: [], calls: [], results: [] };
  const text = (c) => (typeof c === "string" ? c : Array.isArray(c) ? c.map((b) => b?.text ?? "").join("\n") : "");
  if (m.role === "toolResult") out.results.push({ id: m.toolCallId, text: text(m.content), isError: m.isError === true });
  for (const b of blocks) {
    if (b?.type === "text") out.texts.push(b.text ?? "");
    else if (b?.type === "tool_use") out.calls.push({ id: b.id, name: b.name, input: b.input ?? {} });
    else if (b?.type === "toolCall") out.calls.push({ id: b.id, name: b.name, input: b.arguments ?? {} });
    else if (b?.type === "tool_result") out.results.push({ id: b.tool_use_id, text: text(b.content), isError: b.is_error === true });
  }
  return out;
}

const MODIFY = new Set(["edit", "write", "multiedit", "notebookedit"]);
const tool = (name) => String(name).toLowerCase().replace(/[_-]/g, "");
const pathOf = (input) => input.file_path ?? input.path ?? input.notebook_path;
const INTERFACE = /^(<task-notification>|<local-command-|\[request interrupted by user|base directory for this skill:|\/[\w:-]*$)/i;

function errorProbes(text) {
  return text
    .split(/\n|\\n/)
    .map((l) => l.replace(/<\/?tool_use_error>/g, "").trim())
    .filter((l) => l.length >= 12 && !/^exit (code|status) -?\d+$/i.test(l) && !/\.\.\.$/.test(l) && /[a-z]/i.test(l));
}

function firstLineProbe(text) {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l.length >= 12);
  return [lines[0] ?? text.trim()];
}

/** The facts of `messages` (either format): `{ kind: [{ label, probes }] }`. */
export function extractFacts(messages) {
  const ms = messages.map(neutral);
  const facts = Object.fromEntries(KINDS.map((k) => [k, []]));
  const modified = new Set();
  const read = new Set();
  const commands = new Set();
  const failed = new Set(ms.flatMap((m) => m.results.filter((r) => r.isError).map((r) => r.id)));
  let pending = null;
  let last = null;
  for (const m of ms) {
    if (m.role === "user" && m.results.length === 0) {
      const text = m.texts.join("\n").trim();
      if (text && !INTERFACE.test(text) && !text.startsWith("This session is being continued")) facts.requests.push({ label: text.slice(0, 80), probes: firstLineProbe(text) });
    }
    if (m.role === "assistant" && m.texts.join("").trim()) last = m.texts.join("\n").trim();
    for (const c of m.calls) {
      const t = tool(c.name);
      if (failed.has(c.id)) continue;
      if (MODIFY.has(t) && pathOf(c.input)) modified.add(pathOf(c.input));
      if (t === "read" && pathOf(c.input)) read.add(pathOf(c.input));
      if (t === "bash" && typeof c.input.command === "string") {
        const first = c.input.command.trim().split("\n")[0].trim();
        if (first && !commands.has(first)) (commands.add(first), facts.commands.push({ label: first, probes: [first] }));
      }
      if (["todowrite", "updateplan"].includes(t)) {
        const list = c.input.todos ?? c.input.plan;
        if (Array.isArray(list)) pending = list.filter((i) => !["completed", "done", "cancelled"].includes(i?.status)).map((i) => i?.content ?? i?.step ?? "").filter(Boolean);
      }
    }
    for (const r of m.results) {
      if (!r.isError) continue;
      const probes = errorProbes(r.text);
      if (probes.length > 0) facts.errors.push({ label: probes[0].slice(0, 80), probes });
    }
  }
  for (const p of modified) facts.modified.push({ label: p, path: p });
  for (const p of read) if (!modified.has(p)) facts.read.push({ label: p, path: p });
  if (last) facts.last.push({ label: last.slice(0, 80), probes: firstLineProbe(last) });
  for (const p of pending ?? []) facts.pending.push({ label: p, probes: [p] });
  // Repeated errors and requests count once.
  for (const k of ["errors", "requests"]) facts[k] = [...new Map(facts[k].map((f) => [norm(f.probes[0]), f])).values()];
  return facts;
}

/** True when `haystack` (normalized) keeps `fact` (see the file's opening comment). */
export function kept(haystack, fact) {
  if (fact.path) {
    const parts = norm(fact.path).split(/[\\/]/).filter(Boolean);
    return haystack.includes(parts.slice(-2).join("/"));
  }
  return fact.probes.some((p) => haystack.includes(norm(p).slice(0, PROBE)));
}

/** Recall of `text` over `facts`: `{ kind: { total, kept, missing } }`, plus `all`. */
export function score(text, facts) {
  const plain = norm(text);
  const unescaped = norm(unescape(text));
  const out = {};
  let total = 0;
  let hits = 0;
  for (const k of KINDS) {
    const missing = facts[k].filter((f) => !kept(plain, f) && !kept(unescaped, f)).map((f) => f.label);
    out[k] = { total: facts[k].length, kept: facts[k].length - missing.length, missing };
    total += facts[k].length;
    hits += facts[k].length - missing.length;
  }
  out.all = { total, kept: hits, missing: [] };
  return out;
}

export const tokens = (text) => countTokens(text, "o200k_base");

/** The part of a session a summary replaces, and the agent's own summary of it when recorded. */
export function scoredPart(session) {
  const imported = importSession(session.text, session.kind);
  const [first] = imported.compactions;
  if (first === undefined) return { format: imported.format, messages: imported.history, own: null };
  const end = session.kind === "pi" ? (first.firstKeptIndex ?? first.atMessage) : first.atMessage;
  return { format: imported.format, messages: imported.history.slice(0, end), own: first.summary };
}

/** The texts scored for one session: our extractive summary, its digest, the request we send. */
export async function candidates({ format, messages }, { contextWindow = 200_000 } = {}) {
  const base = { preset: "claude-code", contextWindow, format };
  const extractive = await new Compactor({ ...base, summarize: "extractive" }).compact(messages);
  const d = extractive.digest ?? {};
  const digest = [d.filesModified, d.filesRead, d.commands, d.errors, d.userRequests, d.pendingTasks].flat().filter(Boolean).join("\n");
  const requests = [];
  await new Compactor({ ...base, summarize: (r) => (requests.push(r), "Summary.") }).compact(messages);
  const request = requests.map((r) => `${r.system}\n${r.prompt}`).join("\n");
  return { extractive: extractive.summary, digest, request, requests };
}

/** Scores every candidate on every session: rows of `{ session, set, what, tokens, recall }`. */
export async function evaluate(list = sessions()) {
  const rows = [];
  for (const session of list) {
    const part = scoredPart(session);
    if (part.messages.length < 2) continue;
    const facts = extractFacts(part.messages);
    const c = await candidates(part);
    const add = (what, text) => rows.push({ session: session.name, set: session.set, what, tokens: tokens(text), recall: score(text, facts) });
    add("extractive summary", c.extractive);
    add("digest", c.digest);
    add("request sent", c.request);
    if (part.own !== null) add(session.kind === "pi" ? "pi's own summary" : "Claude Code's own summary", part.own);
  }
  return rows;
}

/**
 * The rows of one candidate summed over sessions: `{ what, sessions, tokens, maxTokens, recall }`
 * (`maxTokens`: its most tokens on one session).
 */
export function totals(rows) {
  const by = new Map();
  for (const r of rows) {
    const t = by.get(r.what) ?? { what: r.what, sessions: 0, tokens: 0, maxTokens: 0, recall: Object.fromEntries([...KINDS, "all"].map((k) => [k, { total: 0, kept: 0 }])) };
    t.sessions += 1;
    t.tokens += r.tokens;
    t.maxTokens = Math.max(t.maxTokens, r.tokens);
    for (const k of [...KINDS, "all"]) (t.recall[k].total += r.recall[k].total), (t.recall[k].kept += r.recall[k].kept);
    by.set(r.what, t);
  }
  return [...by.values()];
}

export const pct = ({ total, kept: k }) => (total === 0 ? "—" : `${Math.round((1000 * k) / total) / 10}%`);

/**
 * What falls short of `floor` (bench/quality-floor.json: per set, per candidate, the least recall
 * of each kind and of `all`, and `maxTokens`, the most tokens on one session): a list of lines,
 * empty when every floor is met. A kind with no facts in a set is not judged.
 */
export function floorFailures(rows, floor) {
  const failures = [];
  for (const set of SETS) {
    for (const t of totals(rows.filter((r) => r.set === set))) {
      for (const [kind, min] of Object.entries(floor[set]?.[t.what] ?? {})) {
        if (kind === "maxTokens") {
          if (t.maxTokens > min) failures.push(`${set} ${t.what}: ${t.maxTokens} tokens on one session > ${min}`);
          continue;
        }
        const r = t.recall[kind];
        if (r === undefined) failures.push(`${set} ${t.what}: unknown kind ${kind}`);
        else if (r.total > 0 && r.kept / r.total < min) failures.push(`${set} ${t.what}: ${kind} ${pct(r)} < floor ${min * 100}%`);
      }
    }
  }
  return failures;
}
