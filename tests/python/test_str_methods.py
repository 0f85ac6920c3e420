"""The text methods of Series.str without patterns (title, capitalize,
swapcase, casefold, pad / center / ljust / rjust / zfill, repeat, find /
rfind / index / rindex, get, removeprefix / removesuffix, the is*
predicates) against pandas on random strings with nulls, empty strings and
non-ASCII characters of many Unicode categories: pandas' default str dtype
(Arrow's Unicode rules) for the case transforms and predicates, Python's
own str methods (object dtype) for the rest."""

import functools

import pandas as pd
import pytest
from conftest import missing_as_none, rand_strings

import zambezi as zb
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

ALPHABET = (list("aAbBzZ 19-+_.'\t") +
            ["é", "É", "ß", "ẞ", "Σ", "σ", "ς", "Ί", "ǅ", "ǆ", "İ", "ı", "ﬁ", "µ", "ª", "ʰ",
             "中", "一", "😀", "½", "²", "٣", "Ⅻ", "ⅻ", "①", "\u3000", "\u0345", "Ж", "ж"])

rand_strings = functools.partial(rand_strings, alphabet=ALPHABET, max_len=7)
as_list = missing_as_none


def ints(res):
    return [None if v is None else int(v) for v in as_list(res)]


@pytest.mark.parametrize("n", [0, 1, 2000])
def test_case_transforms_and_predicates_match_pandas(n, threads):
    data = rand_strings(n, n + 21)
    s = zb.Series(data)
    arrow = pd.Series(data, dtype="str")  # pandas' default: Arrow's Unicode rules
    for m in ["title", "capitalize", "swapcase", "casefold"]:
        got = getattr(s.str, m)()
        assert got.dtype == "string"
        assert got.to_list() == as_list(getattr(arrow.str, m)()), m
    nulls = [v is None for v in data]
    for m in ["isalpha", "isdigit", "isnumeric", "isalnum", "isspace", "islower", "isupper",
              "istitle", "isdecimal"]:
        got = getattr(s.str, m)()
        assert got.dtype == "bool"
        want = [None if z else bool(v) for v, z in zip(getattr(arrow.str, m)().tolist(), nulls)]
        assert got.to_list() == want, m


def test_case_transforms_on_words():
    words = ["hello wORLD", "ß straße", "ǅemal", "ΣΊΣΥΦΟΣ", "İstanbul", "a1b2", "😀x", "ʰa xʰa",
             "they're", "Ⅻ ⅻ", "ǆa", "ﬁne", ""]
    s, p = zb.Series(words), pd.Series(words, dtype="str")
    for m in ["title", "capitalize", "swapcase", "casefold", "istitle", "islower", "isupper"]:
        assert getattr(s.str, m)().to_list() == getattr(p.str, m)().tolist(), m


@pytest.mark.parametrize("n", [0, 1, 2000])
def test_padding_repeat_find_get_match_python(n, threads):
    data = rand_strings(n, n + 22, max_len=9)
    s, p = zb.Series(data), pd.Series(data, dtype=object)
    for width in [0, 3, 6, 10]:
        for side in ["left", "right", "both"]:
            assert s.str.pad(width, side).to_list() == as_list(p.str.pad(width, side))
        assert s.str.pad(width, "both", "é").to_list() == as_list(p.str.pad(width, "both", "é"))
        assert s.str.center(width, "😀").to_list() == as_list(p.str.center(width, "😀"))
        assert s.str.ljust(width, "*").to_list() == as_list(p.str.ljust(width, "*"))
        assert s.str.rjust(width).to_list() == as_list(p.str.rjust(width))
        assert s.str.zfill(width).to_list() == as_list(p.str.zfill(width))
    for k in [0, 1, 3, -2]:
        assert s.str.repeat(k).to_list() == as_list(p.str.repeat(k))
    for sub in ["a", "é", "😀", "", "ab", "ß "]:
        for start, end in [(0, None), (2, None), (-3, None), (1, 4), (0, -2), (5, 2), (9, None)]:
            got = s.str.find(sub, start, end)
            assert got.dtype == "int64"
            assert got.to_list() == ints(p.str.find(sub, start, end)), (sub, start, end)
            assert s.str.rfind(sub, start, end).to_list() == ints(p.str.rfind(sub, start, end))
    for i in [0, 1, 3, -1, -2, 20]:
        assert s.str.get(i).to_list() == as_list(p.str.get(i)), i
    for fix in ["a", "é😀", "", "ab"]:
        assert s.str.removeprefix(fix).to_list() == as_list(p.str.removeprefix(fix))
        assert s.str.removesuffix(fix).to_list() == as_list(p.str.removesuffix(fix))


def test_index_rindex_and_bad_arguments():
    s, p = zb.Series(["abcab", "b", None]), pd.Series(["abcab", "b", None], dtype=object)
    assert s.str.index("b").to_list() == ints(p.str.index("b"))
    assert s.str.rindex("b").to_list() == ints(p.str.rindex("b"))
    with pytest.raises(InvalidValueError, match="substring not found"):
        s.str.index("c")
    with pytest.raises(DTypeError, match="fillchar must be a character"):
        s.str.pad(5, fillchar="ab")
    with pytest.raises(InvalidValueError, match="side must be"):
        s.str.pad(5, side="middle")
    with pytest.raises(DTypeError, match="width must be an int"):
        s.str.zfill("5")
    with pytest.raises(UnsupportedError, match="repeats must be one int"):
        s.str.repeat([1, 2, 3])
    with pytest.raises(DTypeError, match="expected a string"):
        s.str.find(1)


def test_categorical_and_index_are_kept():
    data = rand_strings(300, 9)
    idx = list(range(300, 0, -1))
    s = zb.Series(pd.Series(data, index=idx, dtype="category"), name="c")
    want = pd.Series(data, index=idx, dtype="str").str.title()
    got = s.str.title()
    assert got.name == "c" and got.index.to_list() == idx
    assert got.to_list() == as_list(want)
    assert s.str.zfill(5).to_list() == as_list(pd.Series(data, dtype=object).str.zfill(5))
