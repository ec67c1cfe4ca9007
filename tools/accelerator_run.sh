#!/usr/bin/env bash
# The accelerator check as one script that leaves one archive. Two ways:
#
#   bash tools/accelerator_run.sh own [check|measure|all|measure,check]      (default: all)
# On the JAX the machine already has (a TPU VM, Colab, Kaggle; Python 3.11 or later): no lock, no
# .venv. It installs into $SITE (default /tmp/jaxbook-site) only what the book's kernel, the check
# and the snippets import and the machine lacks, from the machine's own index ($INDEX, default
# file:///opt/pypi/simple) and the wheels in $WHEELS (default .whl-tpu: what that index lacks),
# keeping the machine's JAX, jaxlib, NumPy and SciPy first on the path. Then it runs the check
# (python -m tools.accelerator --accept: what differs or broke runs again on the machine's CPU, to
# tell a platform difference from a version difference) and the chip measurements
# (python -m tools.chip_measure), packs both into $OUT/accelerator.tar.gz (or _build/) and copies
# report.txt and chip.json beside it. CHECK_SECONDS and MEASURE_SECONDS bound the two steps, and
# CHECK_UNTIL (seconds since the epoch) the check's end whatever the set-up took; what a stopped
# step wrote so far is packed all the same. CHECK_ARGS: more arguments of the check
# (--page guide/jit.md ...).
#
#   bash tools/accelerator_run.sh [EXTRA]      (EXTRA: JAX's extra for the device, default cuda12)
# With the lock: sets up .venv from requirements.lock (the CPU build's), adds JAX's plugin for the
# device at the lock's JAX version (jax[cuda12]==<lock>: not in the lock, which the CPU build
# uses), runs `python -m tools.accelerator` on every snippet and packs the report, and the
# accelerator outputs it wrote, into $OUT/accelerator.tar.gz (or _build/accelerator.tar.gz).
set -euo pipefail
cd "$(dirname "$0")/.."

#: What the kernel, the check and the snippets import, as module=distribution.
WANTED="jupyter_client=jupyter-client ipykernel=ipykernel yaml=pyyaml myst_parser=myst-parser
  markdown_it=markdown-it-py optax=optax flax=flax orbax.checkpoint=orbax-checkpoint equinox=equinox
  matplotlib=matplotlib"

# The distributions of WANTED that "$1" (a Python) cannot import.
missing() {
  "$1" -c '
import importlib.util, sys
for pair in sys.argv[1:]:
    module, dist = pair.split("=")
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        print(dist)
' $WANTED
}

# The versions of the machine's JAX and its numerical stack, as pip constraints.
constraints() {
  "$1" -c '
from importlib.metadata import version, PackageNotFoundError
for name in ("jax", "jaxlib", "numpy", "scipy", "ml_dtypes", "libtpu"):
    try:
        print(f"{name}=={version(name)}")
    except PackageNotFoundError:
        pass
'
}

# The first Python on PATH that imports the machine's JAX (a TPU VM's python3 can be another
# version than the one its JAX was built for: the TPU lent here has python3 3.12, JAX for 3.11).
machine_python() {
  local candidate
  for candidate in python3 python3.11 python3.12 python3.13 python3.10 python; do
    if command -v "$candidate" > /dev/null && "$candidate" -c "import jax" 2> /dev/null; then
      command -v "$candidate"
      return
    fi
  done
  echo python3
}

own() {
  local what=${1:-all} py=${PY:-$(machine_python)} site=${SITE:-/tmp/jaxbook-site} env=${ENVDIR:-/tmp/jaxbook-py}
  local index=${INDEX:-file:///opt/pypi/simple} wheels=${WHEELS:-.whl-tpu} out=${OUT:-_build}
  local report=_build/accelerator chip=_build/chip status=0 start
  mkdir -p "$report" "$chip" "$out"
  start=$report/started
  touch "$start"
  exec > >(tee "$report/run.log") 2>&1
  echo "== $(date -u '+%F %T UTC'): $("$py" --version) at $(command -v "$py"), PYTHONPATH=${PYTHONPATH:-}"
  constraints "$py" > "$report/constraints.txt"
  echo "== the machine has: $(tr '\n' ' ' < "$report/constraints.txt")"
  local needed
  needed=$(missing "$py" | tr '\n' ' ')
  if [ -n "${needed// /}" ]; then
    echo "== installing into $site: $needed"
    local links=()
    [ -d "$wheels" ] && links=(--find-links "$wheels")
    local pip=("$py" -m pip install --isolated --disable-pip-version-check -q --only-binary=:all: --no-compile
      --index-url "$index" "${links[@]}" --target "$site" --upgrade)
    # With the machine's versions as constraints, what comes suits its JAX; without them when the
    # index lacks one of those versions (the machine's own stay first on the path all the same).
    # shellcheck disable=SC2086
    # $PINS: a file of exact versions (pip freeze of a rehearsal) installed without resolving.
    if [ -n "${PINS:-}" ]; then
      PIP_CONFIG_FILE=/dev/null "${pip[@]}" --no-deps -r "$PINS"
    else
      PIP_CONFIG_FILE=/dev/null "${pip[@]}" -c "$report/constraints.txt" $needed ||
        PIP_CONFIG_FILE=/dev/null "${pip[@]}" $needed
    fi
  fi
  # A Python of our own whose path is the machine's (PYTHONPATH first: its JAX) and then $site. The
  # book's kernel runs with a PYTHONPATH of its own, so the path goes in a .pth file.
  local pth jpy=$env/bin/python
  if "$py" -m venv --clear --without-pip --system-site-packages "$env"; then
    pth=$("$jpy" -c "import site; print(site.getsitepackages()[0])")/00-jaxbook.pth
  else # no venv module: the user's site folder takes the .pth file
    jpy=$py
    pth=$("$py" -m site --user-site)/00-jaxbook.pth
    mkdir -p "$(dirname "$pth")"
  fi
  { tr ':' '\n' <<< "${PYTHONPATH:-}" | grep -v '^$' || true; echo "$site"; } > "$pth"
  # Host callbacks (jax.debug.print) need JAX's CPU backend beside the accelerator.
  case ${JAX_PLATFORMS:-} in tpu | cuda | gpu | rocm) export JAX_PLATFORMS=$JAX_PLATFORMS,cpu ;; esac
  env -u PYTHONPATH "$jpy" -c "import jax, jupyter_client, ipykernel; print('== JAX', jax.__version__, 'on', jax.devices())"
  local step
  for step in ${what//,/ }; do
    sleep 5 # a chip can refuse a program started just after another ended
    case $step in
      check | all)
        local seconds=${CHECK_SECONDS:-3000}
        if [ -n "${CHECK_UNTIL:-}" ] && ((CHECK_UNTIL - $(date +%s) < seconds)); then
          seconds=$((CHECK_UNTIL - $(date +%s) > 1 ? CHECK_UNTIL - $(date +%s) : 1))
        fi
        echo "== the check: at most $seconds s"
        env -u PYTHONPATH timeout "$seconds" "$jpy" -m tools.accelerator --accept --out "$report" ${CHECK_ARGS:-} ||
          status=$?
        ;;&
      measure | all)
        env -u PYTHONPATH timeout "${MEASURE_SECONDS:-1200}" "$jpy" -m tools.chip_measure --out "$chip" ||
          echo "== chip_measure: exit status $?"
        ;;
    esac
  done
  local archive=$out/accelerator.tar.gz written
  written=$(find snippets -name '*.tpu.out' -newer "$start" -o -name '*.gpu.out' -newer "$start")
  # shellcheck disable=SC2086
  tar czf "$archive" "$report" "$chip" $written
  if [ "$out" != _build ]; then
    for file in "$report/report.txt" "$chip/chip.json"; do if [ -f "$file" ]; then cp "$file" "$out/"; fi; done
  fi
  echo "archive: $archive (check exit status $status)"
}

if [ "${1:-}" = own ]; then
  shift
  own "$@"
  exit 0
fi

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
