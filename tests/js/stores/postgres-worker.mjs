// A child process of postgres.test.mjs: appends `batches` batches to one conversation through its
// own postgres store, retrying each batch on a version conflict, then prints its retry count.
// Usage: node postgres-worker.mjs <connectionString> <schema> <conversationId> <worker> <batches>
import { postgresStore } from "../../../js/stores/postgres.mjs";

const [connectionString, schema, conversationId, worker, batches] = process.argv.slice(2);
const header = '{"type":"session","version":1,"id":"multi","format":"ai-sdk"}';
const store = postgresStore({ connectionString, schema });
let conflicts = 0;
try {
  for (let b = 0; b < Number(batches); b++) {
    // 1 to 3 lines per batch, so that batches of different sizes interleave.
    const lines = Array.from({ length: 1 + (b % 3) }, (_, i) => {
      const id = `w${worker}-b${b}-${i}`;
      return { id, line: JSON.stringify({ type: "message", id, worker: Number(worker), batch: b, part: i }) };
    });
    let version = (await store.load(conversationId))?.version ?? 0;
    for (;;) {
      const result = await store.append(conversationId, { header, lines }, version);
      if (result.ok) break;
      conflicts++;
      version = result.version;
    }
  }
  process.stdout.write(JSON.stringify({ conflicts }));
} finally {
  await store.close();
}
