#!/usr/bin/env bash
# Create (or refresh) hosts/python/.venv with the pinned requirements and the
# hive-mind package installed in editable mode.
#
# Idempotent: the venv is rebuilt only when it is missing or requirements.txt
# or pyproject.toml changed since the last run (a stamp holds their sha256).
# Quiet unless something is installed. PYTHON picks the interpreter
# (default: python3, which must be 3.10 or newer).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
stamp="$venv/.requirements.sha256"
python="${PYTHON:-python3}"

want="$(cat "$here/requirements.txt" "$here/pyproject.toml" | sha256sum | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    exit 0
fi

"$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || {
    echo "setup-venv.sh: $python is older than Python 3.10" >&2
    exit 1
}

echo "setup-venv.sh: installing into $venv" >&2
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -e "$here"
echo "$want" > "$stamp"
