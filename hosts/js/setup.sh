#!/usr/bin/env bash
# Install hosts/js's pinned dependencies (npm ci from package-lock.json) and
# transpile the engine component into the component cache.
#
# Idempotent: npm ci runs only when node_modules is missing or
# package-lock.json changed since the last run (a stamp holds its sha256);
# a component already transpiled is left as it is. Needs Node 20 or newer
# and, for better-sqlite3's build, a C++ compiler and Python (it compiles
# from source when no prebuilt binary can be fetched).
set -euo pipefail

# better-sqlite3 compiles from source when no prebuilt binary can be
# fetched; node-gyp then needs Node's headers, which Debian's nodejs ships
# in /usr/include/node (without this, it would download them).
if [[ -z "${npm_config_nodedir:-}" && -f /usr/include/node/node.h ]]; then
    export npm_config_nodedir=/usr
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

node -e 'process.exit(Number(process.versions.node.split(".")[0]) < 20 ? 1 : 0)' || {
    echo "setup.sh: Node $(node --version) is older than Node 20" >&2
    exit 1
}

stamp="node_modules/.package-lock.sha256"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    echo "setup.sh: installing into $here/node_modules" >&2
    # onnxruntime-node's install script would fetch CUDA binaries from
    # outside the npm registry; the CPU ones ship in the package (.npmrc
    # says the same).
    ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error
    echo "$want" > "$stamp"
fi

# `--install-only`: the dependencies alone (CI installs them while the
# component is still being built; the tests transpile it on first use).
if [[ "${1:-}" != "--install-only" ]]; then
    node scripts/transpile.js
fi
