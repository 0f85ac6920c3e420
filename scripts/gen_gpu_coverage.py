"""Write docs/gpu-coverage.md: what the CUDA backend runs on the GPU, read
from its support table (src/cuda/dispatch.cu) through ``zb.coverage``.

    python scripts/gen_gpu_coverage.py           # rewrite docs/gpu-coverage.md
    python scripts/gen_gpu_coverage.py --check   # exit 1 when it is out of date

zambezi must be importable and built with the CUDA backend (nvcc found at
build time); a machine without a GPU is fine.
tests/python/test_api_docs.py checks that the file equals ``render()``.
"""

import argparse
import pathlib
import sys

import zambezi as zb

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "gpu-coverage.md"

HEAD = """# What runs on the GPU

Generated from the CUDA backend's support table (`src/cuda/dispatch.cu`) by
`python scripts/gen_gpu_coverage.py`; `zb.coverage("cuda")` returns the same
rows. For data in GPU memory, an operation runs on the GPU when a row below
covers its types and variant; anything else runs on the CPU over host copies,
with the result moved back, and `zb.profile()` records it as a fallback with
its reason. "*" means every type or variant. The subject of an operation is
its input column (for `binary`, the type both operands are converted to; for
sorts, group-bys and joins, every key column; for `groupby_agg`, each
aggregated column).

```python
import zambezi as zb
cpu = zb.coverage("cpu")  # the CPU runs every operation, for every type
assert all(r["types"] == "*" for r in cpu)
# zb.coverage("cuda") returns the rows below, in a build with the CUDA backend
```

| operation | variants | types |
| --- | --- | --- |
"""


def _cell(v):
    if v == "*":
        return "*"
    if v == "" or v == [""]:
        return "-"
    return ", ".join(v)


def render():
    rows = zb.coverage("cuda")
    body = "".join(f"| {r['op']} | {_cell(r['variants'])} | {_cell(r['types'])} |\n"
                   for r in rows)
    ops = {r["op"] for r in rows}
    cpu_only = [r["op"] for r in zb.coverage("cpu") if r["op"] not in ops]
    tail = ("\nOn the CPU only (every type): " + ", ".join(f"`{o}`" for o in cpu_only) + ".\n"
            if cpu_only else "")
    return HEAD + body + tail


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is out of date: run python scripts/gen_gpu_coverage.py")
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
