import { init, loadEncoding, countTokens, estimateTokens } from "context-compaction/web";

const text = document.getElementById("text");
const body = document.querySelector("#result tbody");
const status = document.getElementById("status");

function render() {
  const rows = [
    ["heuristic estimate", estimateTokens(text.value)],
    ["o200k_base (exact)", countTokens(text.value, "o200k_base")],
    ["cl100k_base (exact)", countTokens(text.value, "cl100k_base")],
  ];
  body.replaceChildren(
    ...rows.map(([name, count]) => {
      const tr = document.createElement("tr");
      tr.dataset.tokenizer = name.split(" ")[0];
      for (const value of [name, String(count)]) {
        const td = document.createElement("td");
        td.textContent = value;
        tr.append(td);
      }
      return tr;
    }),
  );
}

try {
  await init();
  await Promise.all([loadEncoding("o200k_base"), loadEncoding("cl100k_base")]);
  render();
  text.addEventListener("input", render);
  status.textContent = "ready";
  document.body.dataset.ready = "true";
} catch (error) {
  status.textContent = `${error.name} ${error.code ?? ""}: ${error.message}`;
  status.className = "error";
  document.body.dataset.ready = "error";
}
