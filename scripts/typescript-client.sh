#!/usr/bin/env bash
# Prepares the TypeScript client (clients/typescript) for its flow test: installs its npm
# packages from package-lock.json when node_modules is missing or older than the lock file
# (npm ci), checks that src/schema.ts matches docs/openapi.yaml (npm run check-types), and
# builds dist/esm and dist/cjs (npm run build; a no-op when nothing it reads changed).
# Prints nothing but a last line `ready` on success; on a failure, the failing step's output.
# Then: MOMO_BASE_URL=… MOMO_API_KEY=… MOMO_API_SECRET=… MOMO_WEBHOOK_PORT=… node clients/typescript/test/flow.mjs
set -euo pipefail
cd "$(dirname "$0")/.."
dir=clients/typescript

for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: install Node.js 18 or later (with npm)" >&2; exit 1; }
done

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Runs a step with its output kept aside; shows it only when the step fails.
quiet() {
  if ! "$@" >"$log" 2>&1; then
    echo "typescript-client: failed: $*" >&2
    cat "$log" >&2
    exit 1
  fi
}

# Tests may prepare the client from several processes at once: one at a time.
exec 9>"$dir/.typescript-client.lock"
if command -v flock >/dev/null; then flock 9; fi

cd "$dir"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  quiet npm ci --no-audit --no-fund --loglevel=error
fi
quiet npm run --silent check-types
quiet npm run --silent build
echo ready
