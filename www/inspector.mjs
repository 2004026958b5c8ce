// The inspector page: UI on the main thread, every package call in a module worker (worker.mjs).
const $ = (id) => document.getElementById(id);
// The package, by its name (the import map in index.html), for the worker to load.
const packageUrl = import.meta.resolve("context-compaction/web");
const worker = new Worker(new URL(`./worker.mjs#${encodeURIComponent(packageUrl)}`, import.meta.url), { type: "module" });
document.documentElement.dataset.package = packageUrl;
let nextId = 1;
const pending = new Map();
worker.onmessage = ({ data }) => {
  const p = pending.get(data.id);
  if (!p) return;
  if (data.progress) return p.onProgress?.(data.progress);
  pending.delete(data.id);
  data.ok ? p.resolve(data.result) : p.reject(data.error);
};
function call(type, payload = {}, onProgress) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    worker.postMessage({ id, type, ...payload });
  });
}

const KINDS = ["user", "assistant", "tool-call", "tool-result", "reasoning", "summary", "system"];
const BYKIND = [
  ["text", "text"],
  ["toolCalls", "tool calls"],
  ["toolResults", "tool results"],
  ["reasoning", "reasoning"],
  ["images", "images"],
  ["system", "system"],
];
const fmt = (n) => Number(n ?? 0).toLocaleString("en-US");
const plural = (n, word) => `${fmt(n)} ${word}${n === 1 ? "" : "s"}`;
let current = null; // the latest view from the worker
let chatMode = false;
let renderToken = 0;

function options() {
  const num = (id) => ($(id).value === "" ? undefined : Number($(id).value));
  return {
    preset: $("preset").value || undefined,
    model: $("model").value.trim() || undefined,
    contextWindow: num("window"),
    reserveTokens: num("reserve"),
    keepRecentTokens: num("keep"),
    triggerFraction: num("fraction"),
    tokenizer: $("tokenizer").value,
  };
}

/** How a loaded file is named in the status line. */
const FILE_KINDS = {
  json: "JSON messages",
  session: "context-compaction session log",
  pi: "pi session",
  "claude-code": "claude-code session",
};

/** "window 200,000 (claude-opus-4-6, the model in the file)": which window the numbers use. */
function describeWindow(w) {
  if (!w) return "";
  const why = {
    set: "set",
    model: `the model ${w.model}`,
    file: `${w.model}, the model in the file`,
    default: w.model ? `the default: the file's model ${w.model} is not in the package's table` : "the default: no model known",
    chat: "chat mode",
  }[w.source];
  return `window ${fmt(w.tokens)} (${why})`;
}

/** Nothing loaded: no stats, no timeline, nothing to compact, undo or export. */
function clearSession() {
  current = null;
  shown = null;
  active = -1;
  $("timeline").style.height = "0";
  $("timeline").replaceChildren();
  $("timeline").dataset.count = "0";
  $("timeline-help").hidden = true;
  $("overview").hidden = true;
  $("summary-panel").hidden = true;
  $("gauge-fill").style.width = "0";
  $("gauge-fill").classList.remove("over");
  $("gauge-threshold").hidden = true;
  $("gauge").setAttribute("aria-valuenow", "0");
  for (const key of ["tokens", "total", "threshold", "window", "windowSource"]) delete $("gauge").dataset[key];
  $("gauge").title = "";
  $("gauge-text").textContent = "no session";
  $("window").placeholder = "the model's, else 200,000";
  for (const id of ["compact", "export", "undo"]) $(id).disabled = true;
}

function setStatus(text, kind = "") {
  $("status").textContent = text;
  $("status").className = `status ${kind}`;
}

function showError(error, context) {
  const where = error.path && !String(error.message).startsWith(error.path) ? ` at ${error.path}` : "";
  setStatus(`${context}: ${error.code ? `${error.code}${where}: ` : ""}${error.message}`, "error");
  document.body.dataset.state = "error";
}

function showProgress(p) {
  $("progress").hidden = !p;
  if (p) {
    $("progress-fill").style.width = `${Math.round(p.fraction * 100)}%`;
    setStatus(`${p.phase}…`);
  }
}

// ---- loading ---------------------------------------------------------------------------------

async function load(payload, name) {
  document.body.dataset.state = "loading";
  chatMode && toggleChat(false);
  // The session shown before is gone as soon as another is asked for, whether or not it loads.
  clearSession();
  showProgress({ phase: "reading", fraction: 0.01 });
  try {
    const view = await call("load", { ...payload, name, options: options() }, showProgress);
    current = view;
    await renderAll(view);
    const kind = FILE_KINDS[view.fileFormat] ?? `${view.fileFormat} session`;
    const extra = view.history !== view.rows.length ? ` (${fmt(view.history)} in the file, ${view.compactions} recorded compactions)` : "";
    // What the reader left out (a torn last line of a file still being written) is shown, not hidden.
    const warned = view.warnings?.length ? ` · Warning: ${view.warnings.join("; ")}` : "";
    setStatus(`${name}: ${kind}, ${fmt(view.rows.length)} messages${extra}${warned}`, warned ? "warning" : "");
    document.body.dataset.state = "loaded";
  } catch (error) {
    showError(error, `Could not load ${name}`);
  } finally {
    showProgress(null);
  }
}

// The sample's window (3,000) is for the sample only: a file loaded next gets its own, unless the
// window was typed meanwhile.
let sampleWindow = false;
$("window").addEventListener("input", () => (sampleWindow = false));
function loadFile(file) {
  if (sampleWindow) $("window").value = "";
  sampleWindow = false;
  load({ file }, file.name);
}

$("file").addEventListener("change", () => {
  const file = $("file").files[0];
  if (file) loadFile(file);
  $("file").value = "";
});
$("sample").addEventListener("click", async () => {
  // The sample is a short session (about 2,500 tokens): shown in a 3,000-token window, as
  // `context-compaction demo` shows it, unless a window is set.
  if ($("window").value === "") {
    $("window").value = "3000";
    sampleWindow = true;
  }
  const res = await fetch(new URL("./sample/claude-code-tool-heavy.jsonl", import.meta.url));
  load({ text: await res.text() }, "claude-code-tool-heavy.jsonl");
});
for (const type of ["dragenter", "dragover"])
  document.addEventListener(type, (e) => {
    e.preventDefault();
    document.body.classList.add("dragging");
  });
document.addEventListener("dragleave", (e) => {
  if (!e.relatedTarget) document.body.classList.remove("dragging");
});
document.addEventListener("drop", (e) => {
  e.preventDefault();
  document.body.classList.remove("dragging");
  const file = e.dataTransfer.files[0];
  if (file) loadFile(file);
});

// ---- rendering -------------------------------------------------------------------------------

function planRoles(plan, n) {
  const roles = new Array(n).fill("");
  const mark = (list, role) => {
    for (const i of list ?? []) {
      const index = typeof i === "number" ? i : i?.index ?? i?.message;
      if (index != null && index < n) roles[index] = role;
    }
  };
  mark(plan.kept, "kept");
  mark(plan.summarize, "summarize");
  mark(plan.turnPrefix, "turn-prefix");
  mark(plan.pinned, "pinned");
  mark(plan.dropped, "dropped");
  mark(plan.system, "system");
  const pruned = new Set((plan.pruned ?? []).map((p) => (typeof p === "number" ? p : p?.index ?? p?.message)));
  return { roles, pruned };
}

function firstKept(plan) {
  return plan.kept?.length ? Math.min(...plan.kept.slice(0, 1)) : -1;
}

function block(row, i, tokens, role, pruned, cache) {
  const li = document.createElement("li");
  li.className = `msg k-${row.kind}${row.turnStart ? " turn" : ""}${pruned ? " pruned" : ""}${i === active ? " active" : ""}`;
  if (i === active) li.id = "msg-active";
  li.dataset.index = i;
  li.dataset.kind = row.kind;
  li.dataset.tokens = tokens;
  li.dataset.plan = role;
  li.style.top = `${rowTop(i)}px`;
  const head = document.createElement("div");
  head.className = "msg-head";
  const idx = document.createElement("span");
  idx.className = "idx";
  idx.textContent = `#${i}`;
  const kind = document.createElement("span");
  kind.className = "kind";
  kind.textContent = row.kind.replace("-", " ");
  const plan = document.createElement("span");
  plan.className = "plan-tag";
  plan.textContent = role ? role.replace("-", " ") : "";
  const tok = document.createElement("span");
  tok.className = "tok";
  tok.textContent = `${fmt(tokens)} tok`;
  head.append(idx, kind, plan);
  if (row.turnStart) {
    const turn = document.createElement("span");
    turn.className = "turn-tag";
    turn.textContent = "turn start";
    head.append(turn);
  }
  if (cache) {
    li.classList.add("cache");
    const tag = document.createElement("span");
    tag.className = "cache-tag";
    tag.textContent = `cache point: ${cache.replace(/([A-Z])/g, " $1").toLowerCase()}`;
    head.append(tag);
  }
  head.append(tok);
  const body = document.createElement("div");
  body.className = "preview";
  body.textContent = row.preview || "(empty)";
  li.append(head, body);
  return li;
}

// The timeline is virtualized: fixed-height rows, only those near the viewport are in the DOM.
const ROW = 56;
const CUT = 34;
const OVERSCAN = 30;
let shown = null; // { view, roles, pruned, kept }
let active = -1; // the selected message (keyboard or click), or -1
function rowTop(i) {
  return i * ROW + (shown && shown.kept > 0 && i >= shown.kept ? CUT : 0);
}

function drawRows() {
  const list = $("timeline");
  if (!shown) return list.replaceChildren();
  const { view, roles, pruned, kept, plan } = shown;
  const n = view.rows.length;
  const main = $("main");
  const offset = list.offsetTop - main.offsetTop;
  const top = Math.max(0, main.scrollTop - offset);
  const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
  const last = Math.min(n, Math.ceil((top + main.clientHeight) / ROW) + OVERSCAN);
  const items = [];
  const cache = new Map((view.cachePoints ?? []).map((p) => [p.index, p.kind]));
  for (let i = first; i < last; i++) items.push(block(view.rows[i], i, view.estimate.perMessage[i] ?? 0, roles[i] ?? "", pruned.has(i), cache.get(i)));
  if (kept > 0 && kept >= first && kept <= last) {
    const cut = document.createElement("li");
    cut.className = "cut";
    cut.setAttribute("role", "separator");
    cut.style.top = `${kept * ROW}px`;
    cut.textContent = `cut: ${plural(plan.summarize?.length ?? 0, "message")} summarized${plan.turnPrefix?.length ? `, ${plan.turnPrefix.length} as a split turn's prefix` : ""}${plan.dropped?.length ? `, ${plan.dropped.length} dropped` : ""}, kept from #${kept} · ${fmt(plan.tokensBefore)} → ~${fmt(plan.tokensAfter)} tokens`;
    items.splice(kept - first, 0, cut);
  }
  list.replaceChildren(...items);
  if (active >= 0 && active < n) list.setAttribute("aria-activedescendant", "msg-active");
  else list.removeAttribute("aria-activedescendant");
}

// ---- keyboard and details ----------------------------------------------------------------------


/** Selects message `i` (clamped) and scrolls it into view. */
function select(i) {
  if (!shown) return;
  const n = shown.view.rows.length;
  if (!n) return;
  active = Math.max(0, Math.min(n - 1, i));
  const main = $("main");
  const offset = $("timeline").offsetTop - main.offsetTop;
  const top = offset + rowTop(active);
  if (top < main.scrollTop) main.scrollTop = top - 8;
  else if (top + ROW > main.scrollTop + main.clientHeight) main.scrollTop = top + ROW - main.clientHeight + 8;
  drawRows();
  const row = shown.view.rows[active];
  setStatus(`message #${active}: ${row.kind.replace("-", " ")}, ${fmt(shown.view.estimate.perMessage[active] ?? 0)} tokens${shown.roles[active] ? `, ${shown.roles[active].replace("-", " ")}` : ""}`);
}

/** Opens the dialog with message `i` as the package renders it. */
async function openDetail(i) {
  if (!shown || i < 0) return;
  try {
    const { json, truncated } = await call("message", { index: i, chat: chatMode });
    const row = shown.view.rows[i];
    $("detail-title").textContent = `Message #${i}: ${row.kind.replace("-", " ")}`;
    $("detail-meta").textContent = `${fmt(shown.view.estimate.perMessage[i] ?? 0)} tokens${shown.roles[i] ? ` · ${shown.roles[i].replace("-", " ")}` : ""}${row.turnStart ? " · starts a turn" : ""}${truncated ? " · shown up to 200,000 characters" : ""}`;
    $("detail-text").textContent = json;
    $("detail").showModal();
  } catch (error) {
    showError(error, "Message");
  }
}

const KEYS = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: 10, PageUp: -10 };
$("timeline").addEventListener("keydown", (e) => {
  if (!shown || e.altKey || e.ctrlKey || e.metaKey) return;
  const n = shown.view.rows.length;
  if (e.key in KEYS) select(active < 0 ? 0 : active + KEYS[e.key]);
  else if (e.key === "Home") select(0);
  else if (e.key === "End") select(n - 1);
  else if ((e.key === "Enter" || e.key === " ") && active >= 0) openDetail(active);
  else return;
  e.preventDefault();
});
$("timeline").addEventListener("focus", () => {
  if (shown && active < 0) select(0);
});
$("timeline").addEventListener("click", (e) => {
  const li = e.target.closest(".msg");
  if (!li) return;
  select(Number(li.dataset.index));
  openDetail(active);
});
$("detail").addEventListener("close", () => $("timeline").focus());

async function renderTimeline(view) {
  active = -1;
  renderPlan(view);
  $("main").scrollTop = 0;
  drawRows();
}

function renderPlan(view) {
  const list = $("timeline");
  const { plan } = view;
  const n = view.rows.length;
  const { roles, pruned } = plan.noop ? { roles: [], pruned: new Set() } : planRoles(plan, n);
  const kept = plan.noop ? -1 : firstKept(plan);
  shown = { view, roles, pruned, kept, plan };
  list.dataset.count = n;
  list.dataset.firstKept = firstKept(plan);
  list.dataset.complete = "true";
  list.style.height = `${n * ROW + (kept > 0 ? CUT : 0)}px`;
  if (active >= n) active = n - 1;
  $("timeline-help").hidden = n === 0;
  drawRows();
}

let scrollFrame = 0;
$("main").addEventListener("scroll", () => {
  if (scrollFrame) return;
  scrollFrame = requestAnimationFrame(() => {
    scrollFrame = 0;
    drawRows();
  });
});
window.addEventListener("resize", drawRows);

function renderGauge(view) {
  const { check, estimate } = view;
  const limit = view.window?.tokens ?? Math.max(check.threshold, 1) / (options().triggerFraction || 1);
  const max = Math.max(limit, check.tokens, 1);
  const pct = Math.min(100, (check.tokens / max) * 100);
  $("gauge-fill").style.width = `${pct}%`;
  $("gauge-fill").classList.toggle("over", check.shouldCompact);
  $("gauge-threshold").hidden = false;
  $("gauge-threshold").style.left = `${Math.min(100, (check.threshold / max) * 100)}%`;
  $("gauge").setAttribute("aria-valuenow", Math.round(pct));
  $("gauge-text").textContent = `${fmt(check.tokens)} tokens · trigger at ${fmt(check.threshold)}${check.shouldCompact ? " · compaction due" : ""}${view.window ? ` · ${describeWindow(view.window)}` : ""}`;
  if (view.window) {
    $("gauge").dataset.window = view.window.tokens;
    $("gauge").dataset.windowSource = view.window.source;
    const w = view.window;
    if (w.source === "file" || w.source === "model") $("window").placeholder = `${fmt(w.tokens)} (${w.model})`;
    else if (w.source === "default") $("window").placeholder = `${fmt(w.tokens)} (default)`;
  }
  $("gauge").dataset.tokens = check.tokens;
  $("gauge").dataset.total = estimate.total;
  $("gauge").dataset.threshold = check.threshold;
  $("gauge").title = check.reason;
}

function renderOverview(view) {
  const { estimate, plan, check } = view;
  $("overview").hidden = false;
  const counts = {};
  for (const r of view.rows) counts[r.kind] = (counts[r.kind] ?? 0) + 1;
  const turns = view.rows.filter((r) => r.turnStart).length;
  const stats = [
    ["messages", fmt(view.rows.length)],
    ["turns", fmt(turns)],
    ["tokens", fmt(estimate.total)],
    ["window", view.window ? fmt(view.window.tokens) : "-"],
    ["threshold", fmt(check.threshold)],
    ["after plan", plan.noop ? "no cut" : `~${fmt(plan.tokensAfter)}`],
    // What the summary request would cost now in each mode, in input-token equivalents (docs/cost.md).
    ["summary cost", plan.cost ? `continue ~${fmt(plan.cost.continue.inputEquivalents)} · transcript ~${fmt(plan.cost.transcript.inputEquivalents)}` : "—"],
    ["format", view.format ?? view.fileFormat ?? "auto"],
  ];
  $("stats").replaceChildren(
    ...stats.map(([k, v]) => {
      const d = document.createElement("div");
      d.className = "stat";
      d.dataset.stat = k;
      d.innerHTML = `<span class="stat-v"></span><span class="stat-k"></span>`;
      d.firstChild.textContent = v;
      d.lastChild.textContent = k;
      return d;
    }),
  );
  const total = Math.max(1, ...BYKIND.map(([k]) => estimate.byKind[k] ?? 0));
  $("chart").replaceChildren(
    ...BYKIND.map(([k, label]) => {
      const row = document.createElement("div");
      row.className = `bar b-${k}`;
      row.dataset.kind = k;
      const name = document.createElement("span");
      name.textContent = label;
      const track = document.createElement("span");
      track.className = "track";
      const fill = document.createElement("span");
      fill.className = "fill";
      fill.style.width = `${((estimate.byKind[k] ?? 0) / total) * 100}%`;
      track.append(fill);
      const value = document.createElement("span");
      value.className = "v";
      value.textContent = fmt(estimate.byKind[k]);
      row.append(name, track, value);
      return row;
    }),
  );
  $("legend").replaceChildren(
    ...KINDS.filter((k) => counts[k]).map((k) => {
      const s = document.createElement("span");
      s.className = `chip k-${k}`;
      s.textContent = `${k.replace("-", " ")} ${counts[k]}`;
      return s;
    }),
  );
}

async function renderAll(view) {
  renderGauge(view);
  renderOverview(view);
  await renderTimeline(view);
  $("compact").disabled = chatMode;
  $("export").disabled = chatMode;
  $("undo").disabled = chatMode || !view.canUndo;
}

// ---- live plan -------------------------------------------------------------------------------

let analyzeSeq = 0;
async function reanalyze() {
  if (!current || chatMode) return;
  const seq = ++analyzeSeq;
  try {
    const analysis = await call("analyze", { options: options() });
    if (seq !== analyzeSeq || !analysis) return;
    current = { ...current, ...analysis };
    renderGauge(current);
    renderOverview(current);
    renderPlan(current);
    if (document.body.dataset.state === "error") document.body.dataset.state = "loaded";
    setStatus(current.check.reason);
  } catch (error) {
    if (seq === analyzeSeq) showError(error, "Options");
  }
}
let debounce;
$("controls").addEventListener("input", (e) => {
  if (e.target.closest("#openai") || e.target.id === "instructions" || e.target.id === "summarizer") return;
  clearTimeout(debounce);
  debounce = setTimeout(reanalyze, 120);
});
$("summarizer").addEventListener("change", () => ($("openai").hidden = $("summarizer").value !== "openai"));

// ---- compaction ------------------------------------------------------------------------------

$("compact").addEventListener("click", async () => {
  const summarizer =
    $("summarizer").value === "openai"
      ? { kind: "openai", url: $("api-url").value, key: $("api-key").value, model: $("api-model").value }
      : { kind: "extractive" };
  $("compact").disabled = true;
  document.body.dataset.state = "compacting";
  try {
    const view = await call(
      "compact",
      { options: options(), summarizer, instructions: $("instructions").value },
      showProgress,
    );
    current = { ...current, ...view };
    await renderAll(current);
    const c = view.compaction;
    $("summary-panel").hidden = false;
    $("saved").textContent = `${fmt(c.tokensBefore)} → ${fmt(c.tokensAfter)} tokens: ${fmt(c.tokensBefore - c.tokensAfter)} saved (${Math.round((1 - c.tokensAfter / Math.max(1, c.tokensBefore)) * 100)}%), round ${c.round}.${c.warnings.length ? ` Warnings: ${c.warnings.join("; ")}` : ""}`;
    $("saved").dataset.before = c.tokensBefore;
    $("saved").dataset.after = c.tokensAfter;
    $("summary-text").textContent = c.summary;
    showRetention(c.retention);
    setStatus(`compacted: ${fmt(view.rows.length)} messages in the rendered context`);
    document.body.dataset.state = "compacted";
  } catch (error) {
    showError(error, "Compaction failed");
  } finally {
    showProgress(null);
    $("compact").disabled = chatMode || !current;
  }
});

const FACT_KINDS = { filesModified: "file modified", filesRead: "file read", commands: "command", errors: "error", userRequests: "user request", pendingTasks: "pending task" };

/** The summary's fact retention: how many facts it keeps, and each one it lost. */
function showRetention(r) {
  const list = $("summary-lost");
  list.replaceChildren();
  if (!r) {
    $("retention").textContent = "";
    return;
  }
  $("retention").textContent = `Facts kept: ${fmt(r.kept)} of ${fmt(r.total)} (${Math.round(r.recall * 100)}%)${r.kept < r.total ? ". Lost:" : "."}`;
  for (const [kind, k] of Object.entries(r.kinds)) {
    for (const item of k.missing) {
      const li = document.createElement("li");
      li.dataset.kind = kind;
      li.textContent = `${FACT_KINDS[kind] ?? kind}: ${item}`;
      list.append(li);
    }
  }
}

$("undo").addEventListener("click", async () => {
  try {
    const view = await call("undo", { options: options() });
    current = { ...current, ...view };
    $("summary-panel").hidden = true;
    await renderAll(current);
    setStatus(`undone: the session branched at entry ${view.branchedAt}, ${fmt(view.rows.length)} messages live`);
    document.body.dataset.state = "loaded";
  } catch (error) {
    showError(error, "Undo");
  }
});

$("export").addEventListener("click", async () => {
  try {
    const { text, name } = await call("exportJsonl", { options: options() });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type: "application/jsonl" }));
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  } catch (error) {
    showError(error, "Export");
  }
});

// ---- chat mode -------------------------------------------------------------------------------

async function toggleChat(on = !chatMode) {
  chatMode = on;
  $("chat-toggle").setAttribute("aria-pressed", String(on));
  $("chat").hidden = !on;
  $("drop").hidden = on;
  $("summary-panel").hidden = true;
  for (const id of ["compact", "export", "undo"]) $(id).disabled = on || !current;
  if (on) {
    const view = await call("chatStart", { options: options() });
    await renderChat(view);
    $("chat-input").focus();
  } else if (current) {
    await renderAll(current);
  } else {
    clearSession();
  }
}
async function renderChat(view) {
  renderGauge(view);
  renderOverview(view);
  await renderTimeline(view);
  $("chat").dataset.compactions = view.compactions;
  setStatus(`chat: ${view.entries} log entries, ${view.compactions} compaction${view.compactions === 1 ? "" : "s"} so far`);
  $("main").scrollTop = $("main").scrollHeight;
}
$("chat-toggle").addEventListener("click", () => toggleChat());
$("chat-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const text = $("chat-input").value.trim();
  if (!text) return;
  $("chat-input").value = "";
  try {
    await renderChat(await call("chatSend", { text }));
  } catch (error) {
    showError(error, "Chat");
  }
});

// ---- start -----------------------------------------------------------------------------------
setStatus("ready: open a file, drop one here, or load the sample");
document.body.dataset.ready = "true";
