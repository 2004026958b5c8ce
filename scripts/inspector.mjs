// `npm run inspector`: serves the package root on loopback and prints the inspector's address, as
// `context-compaction inspector` does from an install. PORT=8080 picks the port; the default is any
// free one.
import { fileURLToPath } from "node:url";
import { serveInspector } from "../bin/cli/inspector.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { pages } = await serveInspector(root, { port: Number(process.env.PORT ?? 0) });
console.log(`inspector: ${pages.inspector}`);
console.log(`token counter: ${pages.counter}`);
