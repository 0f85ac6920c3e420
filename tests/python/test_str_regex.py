"""The pattern methods of Series.str (regular expressions on PCRE2, split,
rsplit, partition) against pandas on object-dtype strings, which runs
Python's own re and str methods: random strings with nulls, empty strings,
digits, whitespace and newlines, and non-ASCII characters (é, ß, Greek,
CJK, emoji); 1 and 3 threads; the errors, and a missing libpcre2."""

import functools
import os
import re
import subprocess
import sys

import pandas as pd
import pytest
from conftest import missing_as_none, rand_strings

import zambezi as zb
from zambezi.errors import InvalidValueError, UnsupportedError
from pandas_compare import assert_frame_like

ALPHABET = list("abcAB x12\n_.-") + ["é", "ß", "Σ", "ς", "中", "😀", "\u3000", "٣", "ab", "  "]

rand_strings = functools.partial(rand_strings, alphabet=ALPHABET, max_len=9)
as_list = missing_as_none


def pair(n, seed):
    data = rand_strings(n, seed)
    return zb.Series(data), pd.Series(data, dtype=object)


def expected_frame(pdf):
    """pandas' object-dtype result as the str columns zambezi shows."""
    return pdf.astype("str") if pdf.shape[1] else pdf


PATTERNS = [r"\d+", r"[a-c]+", r"^a", r"b$", r"(a|é)\w", r"\s", r"x*", r"ß|Σ", r"\bab",
            r".", r"[^\W\d]{2}", r"(?i)AB", r"\w+\Z", r"^$", r"😀.?中?", r"a(?=b)", r"(.)\1",
            # Python-only spellings zambezi translates for PCRE2
            r"\U0001F600", r"\N{LATIN SMALL LETTER E WITH ACUTE}", r"a{,2}b", r"[{,]"]


@pytest.mark.filterwarnings("ignore:This pattern is interpreted")
@pytest.mark.parametrize("n", [0, 1, 1000])
def test_tests_and_count_match_python_re(n, threads):
    s, p = pair(n, n + 11)
    for pat in PATTERNS:
        assert s.str.contains(pat).to_list() == as_list(p.str.contains(pat)), pat
        assert s.str.match(pat).to_list() == as_list(p.str.match(pat)), pat
        assert s.str.fullmatch(pat).to_list() == as_list(p.str.fullmatch(pat)), pat
        got = s.str.count(pat)
        assert got.dtype == "int64"
        assert got.to_list() == [None if v is None else int(v) for v in as_list(p.str.count(pat))]
    for pat, kw in [("AB", {"case": False}), ("^b", {"flags": re.M}), ("a.b", {"flags": re.S}),
                    (r"\d", {"flags": re.A}), ("a b # comment", {"flags": re.X}),
                    (re.compile("É", re.I), {})]:
        assert s.str.contains(pat, **kw).to_list() == as_list(p.str.contains(pat, **kw)), pat
    assert s.str.contains("A", case=False, regex=False).to_list() == \
        as_list(p.str.contains("A", case=False, regex=False))
    want = as_list(p.str.contains(r"\d", na=True))
    assert s.str.contains(r"\d", na=True).to_list() == want


@pytest.mark.parametrize("n", [1, 1000])
def test_replace_matches_re_sub(n, threads):
    s, p = pair(n, n + 12)
    for pat, repl, cnt, case in [(r"(\w)(\d)", r"\2\1", -1, True), (r"(?P<x>a+)", r"<\g<x>>", -1, True),
                                 (r"x*", "-", -1, True), (r"\s+", " ", 1, True),
                                 (r"a|b", "€", 2, True), ("AB", "¡", -1, False),
                                 (r"(a)|(b)", r"[\1\2]", -1, True), (r"é", r"\\n", -1, True),
                                 (r"^", ">", -1, True), (r"(.)\1", r"\g<1>", -1, True)]:
        got = s.str.replace(pat, repl, n=cnt, case=case, regex=True)
        assert got.to_list() == as_list(p.str.replace(pat, repl, n=cnt, case=case, regex=True)), pat
    got = s.str.replace("a", "Z", case=False, regex=False)
    assert got.to_list() == as_list(p.str.replace("a", "Z", case=False, regex=False))


@pytest.mark.parametrize("n", [0, 7, 1000])
def test_extract_matches_pandas(n, threads):
    s, p = pair(n, n + 13)
    for pat in [r"(\d)", r"([a-c])(\d)?", r"(?P<first>\w)(?P<rest>.*)", r"(x)|(é+)", r"^(\s*)"]:
        assert_frame_like(s.str.extract(pat), expected_frame(p.str.extract(pat)), pat)
    got = s.str.extract(r"(?P<d>\d+)", expand=False)
    want = p.str.extract(r"(?P<d>\d+)", expand=False)
    assert got.name == want.name == "d"
    assert got.to_list() == as_list(want)


def test_extract_keeps_the_index_and_runs_on_categoricals():
    data = rand_strings(300, 5)
    idx = [f"r{i}" for i in range(300)]
    s, p = zb.Series(data, index=idx), pd.Series(data, index=idx, dtype=object)
    assert_frame_like(s.str.extract(r"([ab])(\d)"), expected_frame(p.str.extract(r"([ab])(\d)")))
    c = zb.Series(pd.Series(data, dtype="category"))
    assert c.str.contains(r"[a-c]\d").to_list() == as_list(p.str.contains(r"[a-c]\d"))
    want = expected_frame(pd.Series(data, dtype=object).str.extract(r"(\w)(\d)"))
    assert_frame_like(c.str.extract(r"(\w)(\d)"), want)


@pytest.mark.parametrize("n", [0, 7, 1000])
def test_split_rsplit_partition_match_pandas(n, threads):
    s, p = pair(n, n + 14)
    cases = [((None,), {}), ((" ",), {}), (("a",), {"n": 1}), (("ab",), {"regex": False}),
             ((r"\d+",), {"regex": True}), ((r"(\d)",), {}), ((r"x|é",), {"n": 2}), ((None,), {"n": 1})]
    for args, kw in cases:
        if n == 0 and args[0] is None:
            continue  # pandas' object split of no rows gives one column of nothing
        got = s.str.split(*args, expand=True, **kw)
        assert_frame_like(got, expected_frame(p.str.split(*args, expand=True, **kw)), (args, kw))
    for args, kw in [((None,), {"n": 1}), ((" ",), {"n": 1}), (("ab",), {"n": 2}), (("x",), {})]:
        if n == 0:
            continue
        got = s.str.rsplit(*args, expand=True, **kw)
        assert_frame_like(got, expected_frame(p.str.rsplit(*args, expand=True, **kw)), (args, kw))
    for sep in [" ", "ab", "😀", "\n"] if n else []:  # pandas' object partition of no rows: no columns
        assert_frame_like(s.str.partition(sep), expected_frame(p.str.partition(sep)), sep)
        assert_frame_like(s.str.rpartition(sep), expected_frame(p.str.rpartition(sep)), sep)


def test_results_do_not_depend_on_threads():
    s = zb.Series(rand_strings(70_001, 3))  # two morsels
    results = []
    for t in (1, 3):
        zb.set_num_threads(t)
        results.append([s.str.replace(r"(\w)\d", r"\1#", regex=True).to_list(),
                        s.str.split(r"\s", expand=True).to_dict("list"),
                        s.str.count(r"[aé]").to_list(),
                        s.str.extract(r"(\w)(\d)?").to_dict("list")])
    assert results[0] == results[1]
    p = pd.Series(s.to_list(), dtype=object)
    assert results[0][0] == as_list(p.str.replace(r"(\w)\d", r"\1#", regex=True))


def test_bad_patterns_raise_clearly():
    s = zb.Series(["a1", None])
    with pytest.raises(InvalidValueError, match=r"invalid regular expression '\(a'"):
        s.str.contains("(a")
    with pytest.raises(InvalidValueError, match="no capture groups"):
        s.str.extract(r"\d")
    with pytest.raises(InvalidValueError, match="invalid replacement"):
        s.str.replace(r"(a)", r"\2", regex=True)
    # list results are list columns (tests/python/test_list_dtype.py; findall
    # of several groups: tests/python/test_lists_text.py)
    with pytest.raises(UnsupportedError, match="callable"):
        s.str.replace("a", lambda m: "b", regex=True)
    with pytest.raises(UnsupportedError, match="flags"):
        s.str.contains("a", flags=re.LOCALE)
    with pytest.raises(InvalidValueError, match="empty separator"):
        s.str.partition("")


def test_missing_pcre2_names_the_library():
    code = ("import zambezi as zb, sys\n"
            "s = zb.Series(['a1'])\n"
            "print(s.str.contains('a', regex=False).to_list())\n"  # literal: no PCRE2 needed
            "print(s.str.split('1', expand=True).shape)\n"
            "try:\n"
            "    s.str.contains(r'\\d')\n"
            "except zb.errors.UnsupportedError as e:\n"
            "    print('ERR', e)\n")
    env = dict(os.environ, ZAMBEZI_LIBPCRE2="/nonexistent/libpcre2-missing.so",
               PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "[True]" and lines[1] == "(1, 2)"
    assert lines[2].startswith("ERR regular expressions need the PCRE2 library libpcre2-8")
    assert "libpcre2-missing.so could not be loaded" in lines[2]
    assert "apt install libpcre2-8-0" in lines[2]


@pytest.mark.parametrize("values", [[None, None], [], ["a,b", None]])
@pytest.mark.parametrize("call", [
    lambda s: s.str.split(",", expand=True), lambda s: s.str.rsplit(",", expand=True),
    lambda s: s.str.split(",", n=1, expand=True), lambda s: s.str.split(expand=True),
    lambda s: s.str.partition(","), lambda s: s.str.rpartition(","),
])
def test_expanding_splits_of_missing_or_no_text_shaped_as_pandas(values, call):
    # pandas: a column of nothing but missing values gives one missing
    # column 0, an empty column none; zambezi gave no column / three
    p = pd.Series(values, dtype="str")
    got = call(zb.from_pandas(p)).to_pandas()
    pd.testing.assert_frame_equal(got, call(p), check_dtype=False, check_column_type=False)
