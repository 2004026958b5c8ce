// A scripted stand-in for the language model, so that the example runs offline and the same way
// every time. `respond` answers a chat turn, `summarize` writes the summary of a compaction. The
// comments show where a real provider call goes (the AI SDK's `generateText`).
// MODEL_DELAY_MS (default 20) and SUMMARY_DELAY_MS (default 150) make them take a while, like a
// real model; SERVER_NAME says who wrote a summary (run.mjs counts summarizer calls by it).

const MODEL_DELAY_MS = Number(process.env.MODEL_DELAY_MS ?? 20);
const SUMMARY_DELAY_MS = Number(process.env.SUMMARY_DELAY_MS ?? 150);
const WRITER = process.env.SERVER_NAME ?? `pid ${process.pid}`;
let summaries = 0;

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
const text = (message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content));
const words = (s) => s.split(/\s+/).filter(Boolean);
const plural = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/**
 * The assistant's reply to the rendered context (`messages`, the summary first once compacted).
 * It echoes the last user message, counts its words and says how much context it was given; asked
 * for something "in detail", it writes a long answer, which makes the context grow quickly.
 */
export async function respond(messages) {
  // With a real model:
  //   import { generateText } from "ai";
  //   import { openai } from "@ai-sdk/openai";
  //   const { text } = await generateText({ model: openai("gpt-4o-mini"), messages });
  //   return text;
  await sleep(MODEL_DELAY_MS);
  const last = text(messages.findLast((m) => m.role === "user") ?? { content: "" });
  const summary = messages.find((m) => text(m).includes("Conversation summary"));
  const seen = plural(messages.length, "message") + (summary ? ", the first a summary" : "");
  let reply = `You said "${last}" (${plural(words(last).length, "word")}). I was given ${seen}.`;
  if (/in detail/i.test(last)) {
    const topic = words(last.replace(/[^\w\s]/g, " ")).slice(1, 4).join(" ");
    for (let i = 1; i <= 24; i++) {
      reply += `\n${i}. On ${topic}, point ${i}: every detail here is scripted, so the same question always gets the same long answer, ${i * 7} words or so of it.`;
    }
  }
  return reply;
}

/**
 * The summarizer given to the Session (`summarize` option). The package calls it with a ready
 * prompt (`request.system`, `request.prompt`) when a compaction is due; this stand-in ignores the
 * prompt and lists the user's requests instead: those of the earlier summary, then the new ones.
 */
export async function summarize(request) {
  // With a real model:
  //   const { text } = await generateText({
  //     model: openai("gpt-4o-mini"),
  //     system: request.system,
  //     prompt: request.prompt,
  //     maxOutputTokens: request.maxTokens,
  //     abortSignal: request.signal, // the package aborts it on timeout or a lost lease
  //   });
  //   return text;
  await sleep(SUMMARY_DELAY_MS, request.signal);
  const earlier = (request.previousSummary ?? "").split("\n").filter((line) => line.startsWith("- "));
  const asked = request.messages.filter((m) => m.role === "user").map((m) => `- ${text(m).slice(0, 80)}`);
  const all = [...earlier, ...asked];
  summaries += 1;
  // One marker per call, never copied from the earlier summary: run.mjs counts them in the log.
  return [
    `Conversation summary (summarizer call ${WRITER} #${summaries}, ${request.purpose}, round ${request.round}).`,
    all.length > 0 ? "The user asked, in order:" : "The turn continues the request above.",
    ...all.slice(-40),
  ].join("\n");
}
