// Generates src/schema.ts from the gateway's OpenAPI document with openapi-typescript.
//
//   node scripts/gen-types.mjs          write src/schema.ts   (npm run gen-types)
//   node scripts/gen-types.mjs --check  regenerate into a temporary file and fail when
//                                       src/schema.ts differs (npm run check-types)
//
// Both go through the same openapi-typescript command line with the same options, so the
// check compares exactly what gen-types would write.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const spec = join(root, "..", "..", "docs", "openapi.yaml");
const schema = join(root, "src", "schema.ts");
const cli = join(root, "node_modules", "openapi-typescript", "bin", "cli.js");
const check = process.argv.includes("--check");

if (!existsSync(cli)) {
  console.error("openapi-typescript is not installed: run `npm ci` in clients/typescript first");
  process.exit(1);
}

function generate(output) {
  // Relative paths, as the tool prints them; the output does not depend on them.
  const run = spawnSync(
    process.execPath,
    [cli, relative(root, spec), "--default-non-nullable", "false", "-o", output],
    { cwd: root, encoding: "utf8" },
  );
  if (run.status !== 0) {
    process.stderr.write(run.stdout ?? "");
    process.stderr.write(run.stderr ?? "");
    console.error(`openapi-typescript failed on ${relative(root, spec)}`);
    process.exit(1);
  }
  return run;
}

if (!check) {
  const run = generate(schema);
  process.stdout.write(run.stdout);
  process.stderr.write(run.stderr);
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "momo-schema-"));
try {
  const fresh = join(dir, "schema.ts");
  generate(fresh);
  const want = readFileSync(fresh, "utf8");
  const have = existsSync(schema) ? readFileSync(schema, "utf8") : null;
  if (have !== want) {
    const why = have === null ? "is missing" : "is stale: docs/openapi.yaml changed since it was generated";
    const at = have === null ? "" : firstDifference(have, want);
    console.error(`clients/typescript/src/schema.ts ${why}${at}.`);
    console.error("Run `npm run gen-types` in clients/typescript and commit src/schema.ts.");
    process.exit(1);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function firstDifference(a, b) {
  const x = a.split("\n");
  const y = b.split("\n");
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] !== y[i]) return ` (first difference at line ${i + 1})`;
  }
  return "";
}
