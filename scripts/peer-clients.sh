#!/usr/bin/env bash
# The peer product's own published clients, for the tests that drive them (test/compat/clients/):
#   python  its Python client from PyPI (`waha`, devlikeapro/waha-python), pinned, into a venv
#           cached at ~/.cache/switchboard/venv-waha-python-<version> (made again only when the pin changes);
#   n8n     its n8n community node (devlikeapro/n8n-nodes-waha, not on npm), from its source at a
#           pinned commit, with its npm dependencies, cached at ~/.cache/switchboard/n8n-nodes-waha-<commit>.
#           The source is cloned from GitHub; N8N_NODES_WAHA_GIT=<a git dir or URL> clones from elsewhere
#           (a mirror, where GitHub cannot be reached).
# `bash scripts/peer-clients.sh [python|n8n]...` (no argument: both). Each prints where it is.
set -euo pipefail

WAHA_PYTHON_VERSION=1.0.5
N8N_NODES_WAHA_COMMIT=e1dbc8f0b916bb3ad952a2750cad457a67227283
root="$(cd "$(dirname "$0")/.." && pwd)"
export PATH="$root/.tools/bin:$PATH"
cache="${HOME}/.cache/switchboard"
mkdir -p "$cache"

say() { echo "peer-clients: $*" >&2; }

python_client() {
  local venv="$cache/venv-waha-python-$WAHA_PYTHON_VERSION"
  if ! "$venv/bin/python" -c 'import waha' 2>/dev/null; then
    say "installing the peer's Python client (PyPI waha==$WAHA_PYTHON_VERSION) into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "waha==$WAHA_PYTHON_VERSION"
  fi
  echo "$venv/bin/python"
}

n8n_node() {
  say "the n8n node is not built yet (scripts/peer-clients.sh)"
  return 1
}

if [ $# -eq 0 ]; then set -- python n8n; fi
for client in "$@"; do
  case "$client" in
    python) python_client ;;
    n8n) n8n_node ;;
    *) echo "peer-clients: unknown client '$client' (python, n8n)" >&2; exit 2 ;;
  esac
done
