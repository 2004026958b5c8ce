// inspector: serves the inspector page and the token counter (www/) of the package this file belongs
// to, installed or cloned, on 127.0.0.1, with the web entry, the .wasm and the rank tables they load:
// nothing comes from the network. Runs until interrupted.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CliError, EXIT } from "./errors.mjs";
import { serve } from "./static-server.mjs";

/** The package root: bin/cli/../.. */
export const PACKAGE_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** What the pages load; a clone that was not built lacks the .wasm. */
const NEEDED = ["www/index.html", "www/inspector.mjs", "www/worker.mjs", "js/web.mjs", "pkg/web/context_compaction_bg.wasm"];

/**
 * Serves `root` on loopback (`port` 0: any free one). Resolves to `{ url, pages: { inspector,
 * counter }, close }`.
 */
export async function serveInspector(root = PACKAGE_ROOT, { port = 0 } = {}) {
  const missing = NEEDED.filter((file) => !existsSync(join(root, file)));
  if (missing.length) {
    throw new CliError(`the inspector's files are not in ${root}: ${missing.join(", ")} (in a clone, run npm run build first)`, EXIT.INPUT, { code: "ENOENT" });
  }
  let server;
  try {
    server = await serve(root, { port, home: "/www/index.html" });
  } catch (error) {
    throw new CliError(`cannot listen on 127.0.0.1:${port}: ${error.message}`, EXIT.INPUT, { code: error.code ?? null, cause: error });
  }
  return { ...server, pages: { inspector: `${server.url}/www/index.html`, counter: `${server.url}/www/counter.html` } };
}

export function formatInspector(r) {
  return [`inspector      ${r.pages.inspector}`, `token counter  ${r.pages.counter}`, "serving the installed package on 127.0.0.1 only; Ctrl-C stops"].join("\n");
}
