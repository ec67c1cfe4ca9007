#!/usr/bin/env bash
# The accelerator check on a machine lent with a GPU, as one script that leaves one archive:
#   bash tools/accelerator_run.sh [EXTRA]     (EXTRA: JAX's extra for the device, default cuda12)
# It sets up .venv from requirements.lock (the CPU build's), adds JAX's plugin for the device at the
# lock's JAX version (jax[cuda12]==<lock>: not in the lock, which the CPU build uses), runs
# `python -m tools.accelerator` on every snippet and packs the report, and the accelerator
# outputs it wrote, into $OUT/accelerator.tar.gz (or _build/accelerator.tar.gz without $OUT).
set -euo pipefail
cd "$(dirname "$0")/.."
extra=${1:-cuda12}
make .venv/.installed
version=$(.venv/bin/python -c "from importlib.metadata import version; print(version('jax'))")
.venv/bin/python -m pip install --quiet --disable-pip-version-check "jax[$extra]==$version"
.venv/bin/python -c "import jax; print('JAX', jax.__version__, 'on', jax.devices())"
status=0
.venv/bin/python -m tools.accelerator --accept --out _build/accelerator || status=$?
archive=${OUT:-_build}/accelerator.tar.gz
tar czf "$archive" _build/accelerator $(git ls-files --others --exclude-standard -- 'snippets/*.gpu.out' 'snippets/*.tpu.out') \
  $(git diff --name-only -- 'snippets/*.gpu.out' 'snippets/*.tpu.out')
echo "archive: $archive (check exit status $status)"
