#!/usr/bin/env bash
# Installs the official Standard Webhooks library for Python (`standardwebhooks`, from PyPI) into
# target/venv-standardwebhooks, where the webhook secret rotation test
# (tests/api/webhooks/rotation.rs) verifies real deliveries with it. Does nothing when it is
# already there. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/venv-standardwebhooks
if ! "$venv/bin/python" -c 'import standardwebhooks' 2>/dev/null; then
  echo "installing standardwebhooks into $venv" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check standardwebhooks >&2
fi
echo "$PWD/$venv/bin/python"
