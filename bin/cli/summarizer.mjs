// The summarize callback of --summarizer: "extractive" (the package's built-in summary) or an
// OpenAI-compatible chat-completions endpoint.

/** A callback POSTing the request to `url`; `req.signal` aborts it (timeouts, sibling failures). */
export function endpointSummarizer(url, model, apiKeyEnv) {
  const headers = { "content-type": "application/json" };
  if (apiKeyEnv) headers.authorization = `Bearer ${process.env[apiKeyEnv] ?? ""}`;
  return async (req) => {
    const response = await fetch(url, {
      method: "POST",
      signal: req.signal,
      headers,
      body: JSON.stringify({
        model,
        messages: [
          { role: "system", content: req.system },
          { role: "user", content: req.prompt },
        ],
        max_tokens: req.maxTokens,
      }),
    });
    if (!response.ok) {
      const body = (await response.text().catch(() => "")).slice(0, 300);
      throw new Error(`${url} answered ${response.status} ${response.statusText}${body ? `: ${body}` : ""}`);
    }
    const body = await response.json().catch(() => null);
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== "string") throw new Error(`${url} answered without choices[0].message.content`);
    return content;
  };
}

/** The `summarize` option for the command's flags, and how it is named in reports. */
export function summarizerFor(values) {
  const s = values.summarizer ?? "extractive";
  if (s === "extractive") return { summarize: "extractive", name: "extractive" };
  return { summarize: endpointSummarizer(s, values["summarizer-model"], values["api-key-env"]), name: s };
}
