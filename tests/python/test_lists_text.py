"""List columns as text, against pandas: to_csv of list columns (pandas
writes each object-column list's Python repr, byte for byte), and the
regex producers of lists -- str.findall with several groups (pandas:
lists of tuples; zambezi: lists of lists, compared as Python lists) and
str.extractall with the same patterns."""

import csv

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import UnsupportedError

TEXTS = ["a1b22", "", None, "x9 y", "é5ß7", "c", "abc"]
PATTERNS = [r"([a-z])(\d)", r"([a-z])(\d)?", r"(?P<letter>[a-zé])(?:-)?(\d*)",
            r"(\w)(\w)(\d)", r"c(\d)?"]


def norm(v):
    if isinstance(v, (list, tuple)):
        return [norm(e) for e in v]
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return None
    return v


LISTS = {
    "i": [[1, 2], None, [], [3, None], [-(2**63)]],
    "s": [["a", "it's"], ["x,y", 'q"', 'both\'"'], None, ["é", "", "中😀"],
          ["tab\there", "nl\nx", "back\\slash", "\x01\x7f", "nb\xa0sp\u2028"]],
    "f": [[1.5, 1e16], [0.1, 1e-05], None, [None, -0.0], [float("inf"), 123456789.125]],
    "b": [[True, False], None, [None], [], [True]],
    "n": [[[1], [2, 3]], [], None, [[]], [None, [4]]],
    "k": [1, 2, 3, 4, 5],
}


@pytest.mark.parametrize("kw", [
    {}, {"index": False, "quoting": csv.QUOTE_ALL}, {"sep": ";", "na_rep": "NA"},
    {"quoting": csv.QUOTE_NONNUMERIC, "header": False}, {"sep": "\t", "quotechar": "'"},
])
def test_to_csv_of_lists_matches_pandas_bytes(kw):
    z, p = zb.DataFrame(LISTS), pd.DataFrame(LISTS)
    assert z.to_csv(**kw) == p.to_csv(**kw)


def test_to_csv_of_list_slices_and_files(tmp_path):
    z, p = zb.DataFrame(LISTS).iloc[1:4], pd.DataFrame(LISTS).iloc[1:4]
    assert z.to_csv() == p.to_csv()
    z.to_csv(tmp_path / "z.csv", index=False)
    p.to_csv(tmp_path / "p.csv", index=False)
    assert (tmp_path / "z.csv").read_bytes() == (tmp_path / "p.csv").read_bytes()
    s = zb.Series([["a", None], ["b"]], name="v")
    assert s.to_frame().to_csv() == pd.Series([["a", None], ["b"]], name="v").to_frame().to_csv()


def test_to_csv_of_lists_of_other_values_is_refused_clearly():
    df = zb.DataFrame({"t": zb.Series([[1]]).astype("list<timestamp[s]>")})
    with pytest.raises(UnsupportedError, match="list<timestamp"):
        df.to_csv()


@pytest.mark.parametrize("pat", PATTERNS)
def test_findall_of_several_groups_as_pandas_tuples(pat):
    z, p = zb.Series(TEXTS).str.findall(pat), pd.Series(TEXTS).str.findall(pat)
    assert z.to_list() == norm(p.to_list())  # pandas' tuples compared as lists
    groups = pd.Series(["x"]).str.extract(pat).shape[1]
    assert z.dtype == ("list<list<string>>" if groups > 1 else "list<string>")
    assert norm(z.to_pandas().to_list()) == norm(p.to_list())


@pytest.mark.parametrize("pat", PATTERNS)
def test_extractall_as_pandas(pat):
    z, p = zb.Series(TEXTS).str.extractall(pat), pd.Series(TEXTS).str.extractall(pat)
    # labels of mixed types (a named group and a numbered one) are text in
    # zambezi (zambezi._labels): compared as text
    assert [str(c) for c in z.columns] == [str(c) for c in p.columns]
    assert z.index.to_list() == p.index.to_list()
    for zc, pc in zip(z.columns, p.columns):
        assert z[zc].to_list() == norm(p[pc].to_list())
    # the rows are findall's matches, in order (one engine pass each)
    found = zb.Series(TEXTS).str.findall(pat).explode().dropna()
    assert len(found) == len(p)


def test_extract_one_group_names_the_series_as_pandas():
    for name in (None, "s"):
        for pat in (r"(\d)", r"(?P<d>\d)", r"[a-z](\d)?"):
            z = zb.Series(["a1", "b2", None], name=name).str.extract(pat, expand=False)
            p = pd.Series(["a1", "b2", None], name=name).str.extract(pat, expand=False)
            assert z.name == p.name, (name, pat)
            assert z.to_list() == norm(p.to_list())
