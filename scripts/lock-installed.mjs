// Exits 0 when node_modules holds what package-lock.json says (npm's record of the installed tree,
// node_modules/.package-lock.json, has every package of the lockfile at its version and integrity,
// and nothing else; other platforms' optional packages are not installed), else 1. setup.sh runs
// `npm ci` only then: file times say nothing after a clone or a checkout.
import { readFileSync } from "node:fs";

const packages = (file) => {
  try {
    return JSON.parse(readFileSync(file, "utf8")).packages ?? {};
  } catch {
    return null;
  }
};
const want = packages("package-lock.json");
const have = packages("node_modules/.package-lock.json");
const differs = (path) => {
  const w = want[path];
  const h = have[path];
  if (!h) return !w.optional;
  return h.version !== w.version || h.integrity !== w.integrity;
};
const stale = !want || !have || Object.keys(want).some((path) => path !== "" && differs(path)) || Object.keys(have).some((path) => !(path in want));
process.exit(stale ? 1 : 0);
