"""The API reference: every public function, class, method and property of
zambezi has a docstring with an example, every example runs and gives the
output it shows (doctest), and docs/api.md is what scripts/gen_api_docs.py
writes from those docstrings today.

The public API is found by walking the package (see the generator's
docstring), so a public function added later is checked without editing
this file.
"""

import difflib
import doctest
import importlib.util
import pathlib

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("gen_api_docs", ROOT / "scripts" / "gen_api_docs.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

ENTRIES = gen.public_api()
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def test_the_walk_finds_the_api_users_know():
    # A hand list of names a user of the README would reach for: the walk
    # must find them all (it is the walk, not this list, that the other
    # tests rely on).
    names = {e.name for e in ENTRIES} | {a for e in ENTRIES for a in e.aliases}
    assert len(names) == len(ENTRIES) + sum(len(e.aliases) for e in ENTRIES), "names repeat"
    for name in ["zb.read_csv", "zb.concat", "zb.merge", "zb.from_pandas", "zb.devices",
                 "zb.set_num_threads", "zb.DataFrame", "DataFrame.groupby", "DataFrame.iloc",
                 "Series.value_counts", "Series.isnull", "Series.str.upper",
                 "Series.dt.year", "GroupBy.agg", "zb.errors.ParseError",
                 "zb.ZambeziError", "zb.io.CsvReader.get_chunk"]:
        assert name in names, f"the API walk in scripts/gen_api_docs.py misses {name}"
    sections = {e.section for e in ENTRIES}
    for section in (gen.TOP, gen.DEVICES, "DataFrame", "Series", "Series.str", "Series.dt",
                    "GroupBy", gen.ERRORS):
        assert section in sections


def test_every_public_object_has_a_docstring_with_an_example():
    missing = [e.name for e in ENTRIES if ">>>" not in e.doc]
    assert not missing, (
        f"{len(missing)} public objects have no docstring with an example (>>>): "
        + ", ".join(missing))


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_docstring_examples_run(entry):
    globs = {"zb": zb, "pd": pd, "np": np, "__name__": "zambezi_docs"}
    test = doctest.DocTestParser().get_doctest(entry.doc, globs, entry.name, None, 0)
    if not test.examples:
        pytest.skip("no example (reported by the docstring test)")
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report = []
    try:
        result = runner.run(test, out=report.append, clear_globs=True)
    finally:
        globs.clear()
    assert result.failed == 0, f"the examples of {entry.name} fail:\n" + "".join(report)


def test_api_reference_is_up_to_date():
    if not gen.HAVE_DASK:
        pytest.skip("docs/api.md lists zambezi.dask, which needs dask and distributed")
    text = gen.render()
    assert gen.API_MD.exists(), "docs/api.md is missing: run python scripts/gen_api_docs.py"
    old = gen.API_MD.read_text()
    if old != text:
        diff = difflib.unified_diff(old.splitlines(), text.splitlines(), "docs/api.md",
                                    "from the docstrings", lineterm="", n=1)
        pytest.fail("docs/api.md differs from the docstrings: run python "
                    "scripts/gen_api_docs.py (with this build of zambezi importable) and "
                    "commit docs/api.md.  First differences:\n"
                    + "\n".join(list(diff)[:30]), pytrace=False)


_cov_spec = importlib.util.spec_from_file_location("gen_gpu_coverage",
                                                   ROOT / "scripts" / "gen_gpu_coverage.py")
gen_cov = importlib.util.module_from_spec(_cov_spec)
_cov_spec.loader.exec_module(gen_cov)


@pytest.mark.skipif(not zb._core.build_info()["cuda_compiled"],
                    reason="this build has no CUDA backend, whose table the page lists")
def test_gpu_coverage_page_is_up_to_date():
    text = gen_cov.render()
    assert gen_cov.OUT.exists(), "docs/gpu-coverage.md is missing: run scripts/gen_gpu_coverage.py"
    assert gen_cov.OUT.read_text() == text, (
        "docs/gpu-coverage.md differs from the CUDA backend's table: run "
        "python scripts/gen_gpu_coverage.py and commit it")
