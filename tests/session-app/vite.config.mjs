// Builds the session loop page against the repository's own browser entry.
import { fileURLToPath } from "node:url";

export default {
  root: fileURLToPath(new URL(".", import.meta.url)),
  logLevel: "error",
  resolve: { alias: { "context-compaction": fileURLToPath(new URL("../../js/browser.mjs", import.meta.url)) } },
  build: { target: "es2022", outDir: fileURLToPath(new URL("../.tmp/session-app", import.meta.url)), emptyOutDir: true },
};
