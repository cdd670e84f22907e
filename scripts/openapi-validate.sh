#!/usr/bin/env bash
# Validates docs/openapi.yaml as OpenAPI 3.1 with openapi-spec-validator (from PyPI, installed
# into target/venv beside schemathesis). Usage: scripts/openapi-validate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "openapi-spec-validator==0.9.0"
"$venv/bin/openapi-spec-validator" docs/openapi.yaml
