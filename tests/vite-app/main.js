// A bundled app that uses the package the way a Vite user would: no plugin, no init call.
import { countTokens, estimateTokens, loadEncoding, CompactionError } from "context-compaction";

const out = document.getElementById("out");
const text = "Vite bundles this page; the wasm and the rank table are emitted as assets. 你好 🚀";
try {
  let before = "none";
  try {
    countTokens(text, "o200k_base");
  } catch (error) {
    before = error instanceof CompactionError ? error.code : String(error);
  }
  await loadEncoding("o200k_base");
  out.dataset.before = before;
  out.dataset.exact = String(countTokens(text, "o200k_base"));
  out.dataset.estimate = String(estimateTokens(text));
  out.textContent = "ready";
} catch (error) {
  out.textContent = `error: ${error.message}`;
}
