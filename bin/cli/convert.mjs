// convert: the live messages in another format (convertMessages), as a JSON array or a pi session
// file.
import { randomBytes, randomUUID } from "node:crypto";
import { convertMessages } from "context-compaction";
import { KIND_NAMES, loadInput, reportHead } from "./load.mjs";
import { fields, num, plural } from "./text.mjs";

/**
 * A pi session file (version 3) holding `messages` (pi messages): the header, then one `message`
 * entry per message, each the child of the one before, as pi writes them.
 */
export function piSessionJsonl(messages, now = Date.now()) {
  const iso = (ms) => new Date(ms).toISOString();
  const lines = [{ type: "session", version: 3, id: randomUUID(), timestamp: iso(now), cwd: process.cwd() }];
  const used = new Set();
  let parentId = null;
  for (const message of messages) {
    let id;
    do id = randomBytes(4).toString("hex");
    while (used.has(id));
    used.add(id);
    // pi messages carry their time in milliseconds; convertMessages writes 0 when the source had none.
    const at = typeof message.timestamp === "number" && message.timestamp > 0 ? message.timestamp : now;
    lines.push({ type: "message", id, parentId, timestamp: iso(at), message: { ...message, timestamp: at } });
    parentId = id;
  }
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

/** `{ report, output }`: the converted file's text and what was done. */
export function convertText(text, file, values) {
  const input = loadInput(text, values.format);
  const to = values.to;
  const converted = convertMessages(input.live, { from: input.format, to: to === "pi-jsonl" ? "pi" : to });
  const output = to === "pi-jsonl" ? piSessionJsonl(converted) : `${JSON.stringify(converted, null, 2)}\n`;
  const report = {
    ...reportHead("convert", file, input),
    to,
    messages: { in: input.live.length, out: converted.length },
    // Calls of an aborted turn, answered with an error result so that a provider accepts the history.
    answeredCalls: converted.answeredCalls,
    out: values.out ?? null,
    bytes: Buffer.byteLength(output),
  };
  return { report, output };
}

/** The report as text (on stderr when the output itself goes to stdout). */
export function formatConvert(r) {
  return `converted ${r.file} (${KIND_NAMES[r.input.kind]}, ${r.input.format} messages)\n${fields([
    ["to", r.to === "pi-jsonl" ? "pi session (JSONL)" : `${r.to} messages (JSON array)`],
    ["messages", `${num(r.messages.in)} live → ${num(r.messages.out)}`],
    ...(r.answeredCalls.length ? [["answered", `${plural(r.answeredCalls.length, "interrupted tool call")} with an error result`]] : []),
    ["written", `${r.out === null || r.out === "-" ? "stdout" : r.out}, ${num(r.bytes)} bytes`],
  ])}`;
}
