// Packs the package with `npm pack` (so only the published files are used) and installs the
// tarball into a scratch consumer directory, offline.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const root = new URL("../..", import.meta.url).pathname;
const scratch = join(root, "tests/.tmp");

/** Creates `tests/.tmp/<name>` (copied from `from` if given) with the packed package installed. */
export function consumerWith(name, from) {
  // Test files run in parallel: each consumer packs into its own folder.
  const packDir = join(scratch, `${name}-pack`);
  mkdirSync(packDir, { recursive: true });
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", packDir], {
    cwd: root,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .pop();
  const dir = join(scratch, name);
  rmSync(dir, { recursive: true, force: true });
  if (from) cpSync(from, dir, { recursive: true });
  else mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", join(packDir, tarball)], {
    cwd: dir,
    stdio: "inherit",
  });
  return dir;
}
