#!/usr/bin/env bash
# The accelerator check on a lent GPU machine that cannot download (tools/accelerator_run.sh is the
# script for one that can). The lock's JAX and what the check imports travel as a payload split
# into chunk folders, one per call, each folder carrying this script, its chunk files (part.N),
# payload.sha and pages<K>.txt (the pages each worker runs):
#   bash DIR/gpu_lease.sh append DIR    copy DIR's chunk files to $PARTS (/tmp/parts)
#   bash DIR/gpu_lease.sh go DIR        append DIR, reassemble and check the payload, unpack it into
#                                       $SITE (/tmp/site), put $SITE first on python3's path (a .pth
#                                       file), run `python -m jaxbook.accelerator --accept` in one
#                                       worker per pages<K>.txt at once, and pack the reports, the
#                                       .gpu.out files written, the logs and timings into
#                                       $OUT/accelerator.tar.gz
# Worker 0 runs with JAX's default GPU memory settings (it holds the pages that print them); the
# others with XLA_PYTHON_CLIENT_PREALLOCATE=false, so that the workers share the GPU.
set -uo pipefail
PY=${PY:-python3}
PARTS=${PARTS:-/tmp/parts}
SITE=${SITE:-/tmp/site}
OUT=${OUT:-_build/gpu_lease}
LIMIT=${LIMIT:-330}  # seconds each worker may run
mkdir -p "$OUT"
stage() { echo "$(date +%s) $*" | tee -a "$OUT/timings.txt"; }

append() {
  mkdir -p "$PARTS" && cp "$1"/part.* "$PARTS"/ && ls -l "$PARTS"
}

unpack() {
  local payload=/tmp/payload
  cat "$PARTS"/part.* > /tmp/payload.tar
  echo "$(cat "$1/payload.sha" | cut -d' ' -f1)  /tmp/payload.tar" | sha256sum -c - || return 1
  rm -rf "$payload" "$SITE" && mkdir -p "$payload" "$SITE"
  tar -xf /tmp/payload.tar -C "$payload" && (cd "$payload" && sha256sum -c SHA256SUMS) || return 1
  stage "payload checked"
  if command -v xz >/dev/null; then
    (xz -dc "$payload/rest.tar.xz" | tar -x -C "$SITE") &
  else
    "$PY" -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$payload/rest.tar.xz" "$SITE" &
  fi
  for wheel in "$payload"/*.whl; do "$PY" -m zipfile -e "$wheel" "$SITE" & done
  wait
  local site_packages
  site_packages=$("$PY" -c "import site; print(site.getsitepackages()[0])")
  echo "import sys; sys.path.insert(0, '$SITE')" > "$site_packages/00-jaxbook-site.pth"
  stage "unpacked into $SITE ($(du -sh "$SITE" | cut -f1)); $site_packages/00-jaxbook-site.pth"
}

go() {
  local dir=$1 status=0
  stage "go"
  append "$dir" && unpack "$dir" || { stage "payload broken"; return 1; }
  nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
  env | grep -E '^(JAX|XLA|CUDA|NVIDIA|PYTHON|LD_)' | sort > "$OUT/env.txt"
  "$PY" -c "import jax, jaxlib, numpy, ipykernel; print('JAX', jax.__version__, jaxlib.__version__, numpy.__version__, jax.devices())" 2>&1 | tee "$OUT/jax.txt"
  stage "jax imported"
  touch /tmp/gpu_lease.marker
  local k pages
  for list in "$dir"/pages*.txt; do
    k=${list##*/pages}; k=${k%.txt}
    pages=$(sed 's/^/--page /' "$list" | tr '\n' ' ')
    if [ "$k" = 0 ]; then
      JAXBOOK_SNIPPET_TIMEOUT=120 timeout "$LIMIT" "$PY" -m jaxbook.accelerator --accept --out "_build/accelerator/w$k" $pages > "$OUT/w$k.log" 2>&1 &
    else
      XLA_PYTHON_CLIENT_PREALLOCATE=false JAXBOOK_SNIPPET_TIMEOUT=120 timeout "$LIMIT" "$PY" -m jaxbook.accelerator --accept --out "_build/accelerator/w$k" $pages > "$OUT/w$k.log" 2>&1 &
    fi
  done
  for job in $(jobs -p); do wait "$job" || status=$?; done
  stage "check done (last non-zero exit status: $status)"
  tail -n 3 "$OUT"/w*.log
  tar czf "$OUT/accelerator.tar.gz" _build/accelerator "$OUT"/*.txt "$OUT"/*.log \
    $(find snippets -name '*.gpu.out' -newer /tmp/gpu_lease.marker)
  stage "packed $OUT/accelerator.tar.gz"
}

case ${1:-} in
  append) stage "append $2"; append "$2" ;;
  go) go "$2" ;;
  *) echo "usage: $0 append DIR | go DIR" >&2; exit 2 ;;
esac
