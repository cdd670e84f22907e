#!/usr/bin/env bash
# Runs schemathesis (from PyPI) against a fresh gateway, generating requests from
# docs/openapi.yaml: no 5xx answer and no answer outside the document is allowed.
# Usage: scripts/schemathesis.sh [MAX_EXAMPLES]   (needs a built target/debug/momo-gateway)
set -euo pipefail
cd "$(dirname "$0")/.."
max_examples="${1:-30}"
venv=target/venv
if [ ! -x "$venv/bin/schemathesis" ]; then
  echo "installing schemathesis into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check schemathesis
fi
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Rate limits off: two workers of generated requests go past what a merchant sends.
env -u MOMO_DATABASE_URL MOMO_DATABASE_URL="sqlite://$work/data/gateway.db" MOMO_LISTEN="127.0.0.1:$port" \
  MOMO_RATE_LIMIT_PER_S=0 MOMO_AUTH_RATE_LIMIT_PER_MIN=0 \
  target/debug/momo-gateway serve >"$work/stdout" 2>"$work/stderr" &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; cp "$work/stderr" target/schemathesis-server.log 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
  [ -f "$work/data/demo-sandbox.env" ] && curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
  sleep 0.1
done
# shellcheck disable=SC1091
source "$work/data/demo-sandbox.env"
token=$(curl -sf -X POST "http://127.0.0.1:$port/v1/auth" -u "$DEMO_API_KEY:$DEMO_API_SECRET" -H 'X-Environment: Sandbox' \
  | sed -E 's/.*"token":"([^"]+)".*/\1/')
"$venv/bin/schemathesis" run docs/openapi.yaml \
  --url "http://127.0.0.1:$port" \
  --header "Authorization: Bearer $token" \
  --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance \
  --max-examples "$max_examples" \
  --workers 2 \
  --suppress-health-check all
