#!/usr/bin/env bash
# The peer product's own published clients, for the tests that drive them (test/compat/clients/):
#   python  its Python client from PyPI (`waha`, devlikeapro/waha-python), pinned, into a venv
#           cached at ~/.cache/switchboard/venv-waha-python-<version> (made again only when the pin changes);
#   n8n     its n8n community node (devlikeapro/n8n-nodes-waha, not on npm), from its source at a
#           pinned commit, with its npm dependencies, cached at ~/.cache/switchboard/n8n-nodes-waha-<commit>.
#           The source is cloned from the git bundle in ../shared/reference (every branch of that
#           repository, which these machines cannot reach); N8N_NODES_WAHA_GIT=<a git dir, bundle or
#           URL> clones from elsewhere.
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

# What building and running the node needs, at the versions of its own package-lock.json: its
# dependencies, and of its dev dependencies the compiler, the types n8n-workflow (which n8n
# hands a node at run time) and the test types its sources need. The rest (n8n-core, jest, gulp, eslint) is for its own tests and publishing.
N8N_NODE_PACKAGES='["@devlikeapro/n8n-openapi-node","lodash","openapi-types","pino","n8n-workflow","typescript","@types/node","@types/lodash","@types/express","@types/request-promise-native","@types/jest"]'

n8n_node() {
  local dir="$cache/n8n-nodes-waha-$N8N_NODES_WAHA_COMMIT"
  if [ ! -f "$dir/dist/nodes/WAHA/WAHA.node.js" ]; then
    local source="${N8N_NODES_WAHA_GIT:-$root/../shared/reference/n8n-nodes-waha.bundle}"
    say "building the peer's n8n node (n8n-nodes-waha at ${N8N_NODES_WAHA_COMMIT:0:7}) from $source into $dir"
    rm -rf "$dir" "$dir.tmp"
    git clone --quiet "$source" "$dir.tmp"
    git -C "$dir.tmp" checkout --quiet "$N8N_NODES_WAHA_COMMIT"
    (
      cd "$dir.tmp"
      N8N_NODE_PACKAGES="$N8N_NODE_PACKAGES" node -e '
        const fs = require("node:fs");
        const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8")).packages;
        const manifest = JSON.parse(fs.readFileSync("package.json", "utf8"));
        const pinned = Object.fromEntries(JSON.parse(process.env.N8N_NODE_PACKAGES).map((name) => [name, lock["node_modules/" + name].version]));
        manifest.dependencies = pinned;
        delete manifest.devDependencies;
        fs.writeFileSync("package.json", JSON.stringify(manifest, null, 2));'
      rm -f package-lock.json
      pnpm install --ignore-scripts --config.node-linker=hoisted --reporter=silent
      node node_modules/typescript/bin/tsc
    )
    mv "$dir.tmp" "$dir"
  fi
  echo "$dir"
}

if [ $# -eq 0 ]; then set -- python n8n; fi
for client in "$@"; do
  case "$client" in
    python) python_client ;;
    n8n) n8n_node ;;
    *) echo "peer-clients: unknown client '$client' (python, n8n)" >&2; exit 2 ;;
  esac
done
