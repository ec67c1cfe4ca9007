#!/usr/bin/env bash
# Create .venv from requirements.lock with Python >= 3.12 (JAX 0.12 needs it).
# Called by the Makefile; safe to re-run. Set PYTHON=/path/to/python3.12 to choose the interpreter.
#
# The installer is uv when it can be had, pip otherwise; both install exactly the lock, every file
# checked against its hash (--require-hashes). uv is taken from $JAXBOOK_UV or PATH, else installed
# by pip from tools/uv-requirements.txt (pinned, hash-checked) into .venv. JAXBOOK_INSTALLER=pip
# skips uv.
set -euo pipefail
cd "$(dirname "$0")/.."

need_major=3 need_minor=12
ok() { "$1" -c "import sys; sys.exit(0 if sys.version_info >= ($need_major, $need_minor) else 1)" 2>/dev/null; }

find_python() {
  local candidates=()
  [ -n "${PYTHON:-}" ] && candidates+=("$PYTHON")
  candidates+=(python3.14 python3.13 python3.12 python3)
  if command -v pyenv >/dev/null 2>&1; then
    for v in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.(1[2-9])' | sort -rV); do
      candidates+=("$(pyenv root)/versions/$v/bin/python3")
    done
  fi
  for c in "${candidates[@]}"; do
    if command -v "$c" >/dev/null 2>&1 && ok "$c"; then command -v "$c"; return 0; fi
  done
  return 1
}

if [ -x .venv/bin/python ] && ok .venv/bin/python && [ .venv/.installed -nt requirements.lock ]; then
  exit 0
fi

if ! py=$(find_python); then
  cat >&2 <<MSG
error: the JAX book needs Python ${need_major}.${need_minor} or newer (JAX 0.12 does not support older versions),
and none was found (tried \$PYTHON, python3.14, python3.13, python3.12, python3 and pyenv's versions).
Install Python 3.12, for example:
  - pyenv:            pyenv install 3.12   (this repository's .python-version asks for 3.12.1)
  - Debian/Ubuntu:    apt-get install python3.12 python3.12-venv
  - macOS (Homebrew): brew install python@3.12
then run the make command again, or point to it: make PYTHON=/path/to/python3.12 html
MSG
  exit 1
fi

echo "bootstrap: creating .venv with $py ($("$py" --version 2>&1)) from requirements.lock"
rm -rf .venv
"$py" -m venv .venv
pip_install() { .venv/bin/python -m pip install --quiet --disable-pip-version-check "$@"; }

find_uv() {
  [ "${JAXBOOK_INSTALLER:-uv}" = pip ] && return 1
  if [ -n "${JAXBOOK_UV:-}" ]; then echo "$JAXBOOK_UV"; return 0; fi
  if command -v uv >/dev/null 2>&1; then command -v uv; return 0; fi
  pip_install --require-hashes --no-deps -r tools/uv-requirements.txt >&2 && echo .venv/bin/uv
}

# Every file is pinned by its hash, so the version may come from any of the lock's indexes
# (uv's default, first-index-only strategy guards against a look-alike on a later index; the hash
# does that here, as it does for pip).
# --compile-bytecode: pip writes .pyc files at install and uv does not; where PYTHONDONTWRITEBYTECODE
# is set (CI here), every build and test process would otherwise compile its imports from source.
uv_install() {
  "$uv" pip install --quiet --python .venv/bin/python --require-hashes --no-deps \
    --index-strategy unsafe-best-match --compile-bytecode -r requirements.lock &&
    "$uv" pip check --quiet --python .venv/bin/python
}

if [ "${JAXBOOK_INSTALLER:-uv}" = pip ]; then
  echo "bootstrap: installing with pip (JAXBOOK_INSTALLER=pip; hash-checked)"
elif ! uv=$(find_uv) || ! "$uv" --version >/dev/null 2>&1; then
  echo "bootstrap: uv could not be had (not on PATH, and no uv wheel from tools/uv-requirements.txt" \
       "for this platform); installing with pip instead, which takes longer (hash-checked)"
elif echo "bootstrap: installing with $("$uv" --version) (hash-checked)" && uv_install; then
  touch .venv/.installed
  exit 0
else
  echo "bootstrap: uv failed (above); installing with pip instead, which takes longer (hash-checked)"
fi
pip_install --require-hashes --no-deps -r requirements.lock
.venv/bin/python -m pip check
touch .venv/.installed
