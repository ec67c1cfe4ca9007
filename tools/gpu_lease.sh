#!/usr/bin/env bash
# The accelerator check on a lent GPU machine that cannot download (tools/accelerator_run.sh is the
# script for one that can). The lock's JAX and what the check imports travel as a payload split
# into chunk folders, one per call, each folder carrying this script, its chunk files (part.N),
# payload.sha and pages<K>.txt (the pages each worker runs):
#   bash tools/gpu_lease.sh pack WHEELS DEST   here, on a machine with the book's .venv: the payload
#                                       (what the check imports, from .venv, as one .tar.xz, and
#                                       the wheels of jaxlib and JAX's CUDA plugin and PJRT at the
#                                       lock's version, from the folder WHEELS), split into chunk
#                                       folders DEST/.gpu0, .gpu1, ... of 50 MiB (name .gpu* in
#                                       .git/info/exclude); xz takes minutes on a busy machine
#   bash DIR/gpu_lease.sh append DIR    copy DIR's chunk files to $PARTS (/tmp/parts)
#   bash DIR/gpu_lease.sh go DIR        append DIR, reassemble and check the payload, unpack it into
#                                       $SITE (/tmp/site), put $SITE first on python3's path (a .pth
#                                       file), run `python -m tools.accelerator --accept` in one
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

merge() {  # the workers' reports (DIR/w<K>/report.json) as one report.json and report.txt in DIR
  "$PY" - "$1" <<'EOF'
import json, sys
from pathlib import Path

from tools.accelerator import Verdict, report

folder = Path(sys.argv[1])
parts = [json.loads(p.read_text()) for p in sorted(folder.glob("w*/report.json"))]
verdicts = [Verdict(**s) for d in parts for s in d["snippets"]]
data, text = report(parts[0]["stamp"], verdicts)
data["written"] = [name for d in parts for name in d.get("written", [])]
text += "".join(f"wrote {name}: review it with git diff\n" for name in data["written"])
(folder / "report.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
(folder / "report.txt").write_text(text, encoding="utf-8")
print(text)
EOF
}

pack() {
  local wheels=$1 dest=$2 work=${STAGE:-/tmp/gpu_lease_stage} site
  mkdir -p "$work/payload" "$work/parts"
  site=$(.venv/bin/python -c "import jax, pathlib; print(pathlib.Path(jax.__file__).parents[1])")
  # the files of every distribution the check and the snippets import, with what they need, from
  # .venv: all but jaxlib (its wheel travels) and the site builder's (Sphinx, Babel)
  .venv/bin/python - "$work/files.txt" <<'EOF'
import re, sys
from importlib.metadata import distribution
from packaging.requirements import Requirement

roots = ["jax", "ipykernel", "jupyter-client", "myst-parser", "pyyaml", "matplotlib",
         "optax", "orbax-checkpoint", "equinox", "hypothesis", "pytest", "scipy", "numpy", "jaxtyping"]
left_out = re.compile(r"^(jaxlib|sphinx.*|babel|alabaster|imagesize|snowballstemmer|roman-numerals|debugpy)$")
seen, files = set(), []
while roots:
    name = re.sub(r"[-_.]+", "-", roots.pop()).lower()
    if name in seen or left_out.match(name):
        continue
    seen.add(name)
    dist = distribution(name)
    files += [str(f) for f in dist.files or [] if "__pycache__" not in str(f) and not str(f).startswith("..")]
    for line in dist.requires or []:
        req = Requirement(line)
        if not req.marker or req.marker.evaluate({"extra": ""}):
            roots.append(req.name)
open(sys.argv[1], "w").write("\n".join(files) + "\n")
print(len(seen), "distributions,", len(files), "files")
EOF
  [ -s "$work/payload/rest.tar.xz" ] || tar -cf - -C "$site" -T "$work/files.txt" | xz -6 -T0 > "$work/payload/rest.tar.xz"
  cp "$wheels"/jaxlib-*.whl "$wheels"/jax_cuda*_plugin-*.whl "$wheels"/jax_cuda*_pjrt-*.whl "$work/payload/"
  (cd "$work/payload" && sha256sum ./* > SHA256SUMS) && tar -cf "$work/payload.tar" -C "$work/payload" .
  sha256sum "$work/payload.tar" > "$work/payload.sha"
  rm -f "$work"/parts/part.* && split -b 50M -d -a 1 "$work/payload.tar" "$work/parts/part."
  # three groups of pages of about equal CPU time (the build's store), the pages that print GPU
  # memory and timings in group 0
  PYTHONPATH=. .venv/bin/python - "$work" <<'EOF'
import glob, json, os, sys

from jaxbook import book_root
from jaxbook.execute import book_pages_with_cells

FIRST = ("docs/accelerators.md", "guide/profiling.md")
root, seconds = book_root(), {}
for f in sorted(glob.glob("_build/store/*/*.json"), key=os.path.getmtime):
    page = json.load(open(f))
    seconds[page["page"]] = page["seconds"]
pages = [p.relative_to(root).as_posix() for p in book_pages_with_cells(root)]
cost = {p: next((s for k, s in seconds.items() if k.endswith(p)), 2.0) for p in pages}
groups, load = [[], [], []], [0.0, 0.0, 0.0]
for page in sorted(pages, key=lambda p: (p not in FIRST, -cost[p])):
    k = 0 if page in FIRST else load.index(min(load))
    groups[k].append(page)
    load[k] += cost[page]
for k, group in enumerate(groups):
    open(f"{sys.argv[1]}/pages{k}.txt", "w").write("\n".join(group) + "\n")
print("pages per worker:", [len(g) for g in groups], "CPU seconds:", [round(x) for x in load])
EOF
  local n=0
  for part in "$work"/parts/part.*; do
    mkdir -p "$dest/.gpu$n" && cp "$part" "$0" "$work/payload.sha" "$work"/pages*.txt "$dest/.gpu$n/"
    n=$((n + 1))
  done
  du -sh "$dest"/.gpu*
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
      JAXBOOK_SNIPPET_TIMEOUT=120 timeout "$LIMIT" "$PY" -m tools.accelerator --accept --out "_build/accelerator/w$k" $pages > "$OUT/w$k.log" 2>&1 &
    else
      XLA_PYTHON_CLIENT_PREALLOCATE=false JAXBOOK_SNIPPET_TIMEOUT=120 timeout "$LIMIT" "$PY" -m tools.accelerator --accept --out "_build/accelerator/w$k" $pages > "$OUT/w$k.log" 2>&1 &
    fi
  done
  for job in $(jobs -p); do wait "$job" || status=$?; done
  stage "check done (last non-zero exit status: $status)"
  merge _build/accelerator
  tail -n 3 "$OUT"/w*.log
  tar czf "$OUT/accelerator.tar.gz" _build/accelerator "$OUT"/*.txt "$OUT"/*.log \
    $(find snippets -name '*.gpu.out' -newer /tmp/gpu_lease.marker)
  stage "packed $OUT/accelerator.tar.gz"
}

case ${1:-} in
  pack) pack "$2" "$3" ;;
  append) stage "append $2"; append "$2" ;;
  go) go "$2" ;;
  *) echo "usage: $0 pack WHEELS DEST | append DIR | go DIR" >&2; exit 2 ;;
esac
