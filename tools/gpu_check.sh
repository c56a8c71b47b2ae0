#!/usr/bin/env bash
# The CUDA half of the runtime harness, run on a machine with a GPU.
#
# Run from the repository root. libcst must be importable: on a machine
# without it, put a libcst wheel for its Python in .whl/ first (the script
# installs .whl/*.whl into /tmp/site). Set COMMIT to the commit whose tree
# travelled: a copied .git can be older than the tree. Results go to $OUT (default ./gpu-out):
#   env.txt       GPU, driver, Python, torch, CUDA, numpy, libcst versions
#   harness.txt   the harness's matrix over the shipped cases (CPU and CUDA)
#   harness.json  its machine-readable report
#   pytest.txt    the CUDA-marked and CUDA-gated tests, skips listed (-rs)
#   junit.xml     the same, per test
set -u -o pipefail
OUT="${OUT:-gpu-out}"
mkdir -p "$OUT"
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
        --upgrade --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH="/tmp/site:$PWD"
else
    export PYTHONPATH="$PWD"
fi
export PYTHONUNBUFFERED=1
{
    date -u +%Y-%m-%dT%H:%M:%SZ
    echo "commit: ${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    python3 - <<'EOF'
import sys, numpy, torch, libcst
print("python", sys.version.split()[0])
print("torch", torch.__version__, "cuda", torch.version.cuda,
      "available", torch.cuda.is_available(),
      "device", torch.cuda.get_device_name(0) if torch.cuda.is_available() else "-")
from importlib.metadata import version
print("numpy", numpy.__version__, "libcst", version("libcst"))
EOF
} 2>&1 | tee "$OUT/env.txt"
status=0
parallel=()
python3 -c "import xdist" 2>/dev/null && parallel=(-n 8)
python3 -m tensorlint harness --report "$OUT/harness.json" 2>&1 | tee "$OUT/harness.txt" || status=1
python3 -m pytest -q -p no:cacheprovider -rs "${parallel[@]}" --junitxml="$OUT/junit.xml" \
    tests/test_harness.py tests/test_motivating.py tests/test_numpy_table.py \
    tests/test_library_calls.py tests/test_sanitize.py tests/test_migrate.py 2>&1 | tee "$OUT/pytest.txt" || status=1
exit $status
