// The npm lockfile is reproducible: setup installs it with `npm ci` (which never rewrites it) and
// only when node_modules does not already hold it; the lockfile is in step with package.json and
// holds every platform's optional packages, so `npm ci` accepts it on any machine and a clone stays
// clean after `npm start` and `npm test`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { root } from "./pack.mjs";

const read = (file) => JSON.parse(readFileSync(join(root, file), "utf8"));

/**
 * A copy of what setup.sh reads, with stand-ins for the toolchain (cargo, rustup, wasm-bindgen,
 * wasm-pack, Chromium) and for npm: the stand-in records its arguments and, for `ci`, records the
 * lockfile as installed, as npm does in node_modules/.package-lock.json.
 */
function setupSandbox() {
  const dir = join(root, "tests/.tmp/setup");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "scripts"), { recursive: true });
  for (const file of ["scripts/setup.sh", "scripts/lock-installed.mjs", "rust-toolchain.toml", "Cargo.lock", "package.json", "package-lock.json"]) cpSync(join(root, file), join(dir, file));
  const bin = join(dir, "stub-bin");
  mkdirSync(bin);
  const wasmBindgen = /name = "wasm-bindgen"\nversion = "([^"]+)"/.exec(readFileSync(join(root, "Cargo.lock"), "utf8"))[1];
  const stubs = {
    cargo: "exit 0",
    rustup: 'echo wasm32-unknown-unknown',
    "wasm-bindgen": `echo "wasm-bindgen ${wasmBindgen}"`,
    "wasm-pack": "exit 0",
    chromium: "exit 0",
    chromedriver: "exit 0",
    npm: 'echo "$*" >> "$NPM_LOG"\nif [ "$1" = ci ]; then mkdir -p node_modules && cp package-lock.json node_modules/.package-lock.json; fi',
  };
  for (const [name, body] of Object.entries(stubs)) {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  const log = join(dir, "npm.log");
  writeFileSync(log, "");
  const run = () => {
    const r = spawnSync("bash", [join(dir, "scripts/setup.sh")], {
      encoding: "utf8",
      env: { PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: dir, NPM_LOG: log },
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const calls = readFileSync(log, "utf8").trim().split("\n").filter(Boolean);
    writeFileSync(log, "");
    return calls;
  };
  return { dir, run };
}

test("setup installs the lockfile with npm ci, never npm install, and only when node_modules differs", () => {
  const { dir, run } = setupSandbox();
  const lock = readFileSync(join(root, "package-lock.json"));
  const calls = run();
  assert.equal(calls.length, 1, calls.join("\n"));
  assert.match(calls[0], /^ci\b/, "setup runs npm ci");
  assert.deepEqual(readFileSync(join(dir, "package-lock.json")), lock, "the lockfile is left as it is");
  // Installed: nothing to do, however new the lockfile's file time (a clone or a checkout).
  assert.deepEqual(run(), []);
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(dir, "package-lock.json"), later, later);
  assert.deepEqual(run(), []);
  // The installed tree differs from the lockfile (another branch's, say): installed again.
  const installed = JSON.parse(readFileSync(join(dir, "node_modules/.package-lock.json"), "utf8"));
  installed.packages["node_modules/typescript"].version = "0.0.1";
  writeFileSync(join(dir, "node_modules/.package-lock.json"), JSON.stringify(installed));
  assert.match(run().join("\n"), /^ci\b/);
});

test("the lockfile is valid for npm ci: in step with package.json, every platform's optional packages locked", () => {
  const manifest = read("package.json");
  const lock = read("package-lock.json");
  assert.equal(lock.lockfileVersion, 3);
  const top = lock.packages[""];
  for (const field of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]) {
    assert.deepEqual(top[field] ?? {}, manifest[field] ?? {}, `${field} of package.json and the lockfile`);
  }
  // Every optional dependency (the platform binaries of esbuild, rollup and the like) resolves to a
  // locked package, as Node would find it: `npm install` on another platform has nothing to add.
  const unlocked = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      let base = path;
      let found = false;
      for (;;) {
        if (lock.packages[`${base ? `${base}/` : ""}node_modules/${name}`]) {
          found = true;
          break;
        }
        if (!base) break;
        const i = base.lastIndexOf("/node_modules/");
        base = i < 0 ? "" : base.slice(0, i);
      }
      if (!found) unlocked.push(`${path || "(root)"} → ${name}`);
    }
  }
  assert.deepEqual(unlocked, [], "optional packages missing from the lockfile");
  // npm itself accepts it (a dry run from the cache setup filled; nothing is written).
  const dir = join(root, "tests/.tmp/lockfile-ci");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const file of ["package.json", "package-lock.json"]) cpSync(join(root, file), join(dir, file));
  const r = spawnSync("npm", ["ci", "--dry-run", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: dir, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(readFileSync(join(dir, "package-lock.json")), readFileSync(join(root, "package-lock.json")));
});
