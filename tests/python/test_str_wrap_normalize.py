"""str.normalize, str.wrap and str.translate against pandas (its default str dtype), with
nulls, repeated values (the work is per distinct value), categoricals and
non-ASCII text."""

import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_series_like
from zambezi.errors import DTypeError, InvalidValueError

_TEXT = ["e\u0301te\u0301 à Lusaka", "\ufb01le \u00bd \u2460", None, "Ångström Å",
         "한국어 텍스트", "", "e\u0301te\u0301 à Lusaka", "x\u0307\u0323 ﬃ", None,
         "the Zambezi river flows into the Indian Ocean", "co-operative long-winded-word",
         "tab\tseparated  words\nand lines", "ß" * 25]


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD"])
def test_normalize_like_pandas(form):
    p = pd.Series(_TEXT, dtype="str")
    z = zb.Series(_TEXT, dtype="string")
    assert_series_like(z.str.normalize(form), p.str.normalize(form), form)
    # a categorical gives what its strings give
    zc = zb.Series(_TEXT).astype("category")
    assert zc.str.normalize(form).to_list() == z.str.normalize(form).to_list()


@pytest.mark.parametrize("kw", [
    {"width": 10},
    {"width": 6},
    {"width": 12, "break_long_words": False, "break_on_hyphens": False},
    {"width": 8, "expand_tabs": False, "replace_whitespace": False, "drop_whitespace": False},
    {"width": 15, "initial_indent": "» ", "subsequent_indent": "  ", "max_lines": 2},
])
def test_wrap_like_pandas(kw):
    p = pd.Series(_TEXT, dtype="str")
    z = zb.Series(_TEXT, dtype="string")
    assert_series_like(z.str.wrap(**kw), p.str.wrap(**kw), str(kw))


def test_wrap_normalize_bad_arguments():
    s = zb.Series(["a b"])
    with pytest.raises(InvalidValueError, match="NFC"):
        s.str.normalize("NFX")
    with pytest.raises(DTypeError, match="form"):
        s.str.normalize(3)
    with pytest.raises(InvalidValueError, match="width"):
        s.str.wrap(0)
    with pytest.raises(InvalidValueError, match="placeholder"):
        s.str.wrap(3, max_lines=1, placeholder=" [.........]")


@pytest.mark.parametrize("table", [
    str.maketrans({"e": "E", "\u0301": None, "à": "a"}),
    str.maketrans("abcdefghij", "ABCDEFGHIJ", " \t\n"),
    {ord("Å"): "A", ord("ß"): "ss", ord("한"): ord("H")},
    {},
])
def test_translate_like_pandas(table):
    p = pd.Series(_TEXT, dtype="str")
    z = zb.Series(_TEXT, dtype="string")
    assert_series_like(z.str.translate(table), p.str.translate(table), str(table))
    zc = zb.Series(_TEXT).astype("category")
    assert zc.str.translate(table).to_list() == z.str.translate(table).to_list()
    with pytest.raises(DTypeError, match="mapping"):
        z.str.translate(3)
