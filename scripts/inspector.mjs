// `npm run inspector`: serves the package root on loopback and prints the inspector's address.
// PORT=8080 picks the port; the default is any free one.
import { fileURLToPath } from "node:url";
import { serve } from "./static-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { url } = await serve(root, { port: Number(process.env.PORT ?? 0), home: "/www/index.html" });
console.log(`inspector: ${url}/www/index.html`);
console.log(`token counter: ${url}/www/counter.html`);
