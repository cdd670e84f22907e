// Builds the package twice with tsc: ES modules into dist/esm, CommonJS into dist/cjs, each
// with its own package.json so Node reads each folder's .js files in the right module system.
//
// The build goes to a staging folder that replaces dist/ only once both halves compiled, so a
// failed build leaves the last good one and a reader never sees half a dist/. A build whose
// inputs (src/, the tsconfigs, package.json, package-lock.json, this script) are those of the
// build in dist/ does nothing; `--force` builds anyway.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
const dist = join(root, "dist");
const stampFile = join(dist, ".build-stamp");
const force = process.argv.includes("--force");

const stamp = inputsHash();
if (!force && existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp) process.exit(0);

const staging = join(root, `.dist-build-${process.pid}`);
rmSync(staging, { recursive: true, force: true });
try {
  for (const [config, folder, type] of [
    ["tsconfig.esm.json", "esm", "module"],
    ["tsconfig.cjs.json", "cjs", "commonjs"],
  ]) {
    const out = join(staging, folder);
    const run = spawnSync(process.execPath, [tsc, "-p", config, "--outDir", out], { cwd: root, stdio: "inherit" });
    if (run.status !== 0) {
      console.error(`tsc -p ${config} failed`);
      process.exit(run.status ?? 1);
    }
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "package.json"), JSON.stringify({ type }) + "\n");
  }
  writeFileSync(join(staging, ".build-stamp"), stamp);
  const old = join(root, `.dist-old-${process.pid}`);
  if (existsSync(dist)) renameSync(dist, old);
  renameSync(staging, dist);
  rmSync(old, { recursive: true, force: true });
} finally {
  rmSync(staging, { recursive: true, force: true });
}

function inputsHash() {
  const hash = createHash("sha256");
  const files = [
    ...walk(join(root, "src")),
    ...["tsconfig.json", "tsconfig.esm.json", "tsconfig.cjs.json", "package.json", "package-lock.json"].map((f) =>
      join(root, f),
    ),
    fileURLToPath(import.meta.url),
  ];
  for (const file of files) {
    hash.update(relative(root, file)).update("\0");
    hash.update(existsSync(file) ? readFileSync(file) : "").update("\0");
  }
  hash.update(process.version);
  return hash.digest("hex");
}

function walk(folder) {
  return readdirSync(folder, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => (entry.isDirectory() ? walk(join(folder, entry.name)) : [join(folder, entry.name)]));
}
