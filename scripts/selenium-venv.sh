#!/usr/bin/env bash
# Installs Selenium for Python (pinned, from PyPI) into target/venv-selenium, where the dashboard's
# browser tests (tests/api/dashboard/browser_*.rs) drive headless Chromium with it through
# tests/api/support/dashboard_browser.py. Chromium and its driver come from Debian's `chromium` and
# `chromium-driver` packages (.ci/run installs them). Does nothing when the venv is already there.
# Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
version=4.51.0
venv=target/venv-selenium
if ! "$venv/bin/python" -c "import selenium, sys; sys.exit(selenium.__version__ != '$version')" 2>/dev/null; then
  echo "installing selenium==$version into $venv" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "selenium==$version" >&2
fi
echo "$PWD/$venv/bin/python"
