#!/usr/bin/env bash
# The official Standard Webhooks library for Python (PyPI `standardwebhooks`), pinned, in a venv
# cached at ~/.cache/switchboard/venv-standardwebhooks (made again only when the pin changes):
# the contract tests verify deliveries with it (test/contract/standard-webhooks.test.ts). The npm
# library is a dev dependency of the test package. Prints the venv's python.
set -euo pipefail

STANDARDWEBHOOKS_VERSION=1.1.0
venv="${HOME}/.cache/switchboard/venv-standardwebhooks"

if [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("standardwebhooks"))' 2>/dev/null)" != "$STANDARDWEBHOOKS_VERSION" ]; then
  echo "webhook-verifiers: installing PyPI standardwebhooks==$STANDARDWEBHOOKS_VERSION into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "standardwebhooks==$STANDARDWEBHOOKS_VERSION"
fi
echo "$venv/bin/python"
