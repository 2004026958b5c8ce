// A static file server on 127.0.0.1: `context-compaction inspector` serves the installed package
// with it (the page, the web entry, the .wasm and the rank tables), as do `npm run inspector` and the
// browser tests in a clone.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";

const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".css": "text/css",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".jsonl": "text/plain; charset=utf-8",
  ".tiktoken": "text/plain",
  ".ranks": "application/octet-stream",
  ".png": "image/png",
};

/**
 * Serves `root` on loopback (`port` 0: any free one); `home` is where `/` redirects, if given.
 * Resolves to { url, close }; rejects when the port cannot be had.
 */
export async function serve(root, { port = 0, home } = {}) {
  const server = createServer(async (req, res) => {
    let path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (path.includes("..")) return res.writeHead(403).end();
    if (path === "/" && home) return res.writeHead(302, { location: home }).end();
    if (path.endsWith("/")) path += "index.html";
    try {
      const body = await readFile(join(root, path));
      res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  return { url: `http://127.0.0.1:${address.port}`, close: () => new Promise((r) => server.close(r)) };
}
