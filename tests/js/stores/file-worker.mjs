// A child process for file.test.mjs: appends batches to one conversation of a file store, each
// batch retried at the reported version until it commits, and prints each committed batch's name.
// node file-worker.mjs <dir> <conversation> <tag> <batches (0: until killed)> <lines> <chars>
import { fileStore } from "../../../js/stores/file.mjs";

const [dir, conversation, tag, batchesArg, linesArg, charsArg] = process.argv.slice(2);
const batches = Number(batchesArg);
const perBatch = Number(linesArg);
const filler = "x".repeat(Number(charsArg));
const header = JSON.stringify({ type: "session", version: 1, id: conversation, format: "ai-sdk" });
const store = fileStore({ dir });

let version = 0;
for (let b = 0; batches === 0 || b < batches; b++) {
  const batch = `${tag}-${b}`;
  const lines = Array.from({ length: perBatch }, (_, i) => {
    const id = `${batch}-${i}`;
    return { id, line: JSON.stringify({ type: "message", id, batch, size: perBatch, message: { role: "user", content: filler } }) };
  });
  for (;;) {
    const r = await store.append(conversation, { header, lines }, version);
    version = r.version;
    if (r.ok) break;
  }
  process.stdout.write(`${batch}\n`);
}
await store.close();
