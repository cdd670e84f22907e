#!/usr/bin/env bash
# Installs the Python client (clients/python, the package momo_gateway_client) into
# target/venv-python-client, where the black-box test runs its merchant flow
# (clients/python/tests/flow.py) against a real gateway. Installs again when the package does
# not import or clients/python/pyproject.toml changed since; checks that the generated types
# (src/momo_gateway_client/schema.py) are those of docs/openapi.yaml. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/venv-python-client
marker=$venv/.installed
if [ ! -x "$venv/bin/python" ]; then
  echo "creating $venv" >&2
  python3 -m venv "$venv" >&2
fi
if ! "$venv/bin/python" -c 'import momo_gateway_client, yaml' 2>/dev/null \
  || [ ! -e "$marker" ] || [ clients/python/pyproject.toml -nt "$marker" ]; then
  echo "installing clients/python into $venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check -e 'clients/python[gen]' >&2
  touch "$marker"
fi
"$venv/bin/python" clients/python/scripts/gen_types.py --check >&2
echo "$PWD/$venv/bin/python"
