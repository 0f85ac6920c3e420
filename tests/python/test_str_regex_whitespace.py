"""Python's \\s (str methods take Python's regular expressions) also
matches the separators \\x1c-\\x1f, which the engine's (PCRE2) class does
not: zambezi's str methods against pandas run side by side, on every
character Python's \\s matches and some it does not."""

import re

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

CHARS = [chr(c) for c in range(0x3001) if re.match(r"\s", chr(c))] + ["x", "_", "\x1b", "\x20"]
VALUES = ["a" + c + "b" for c in CHARS] + ["", "\x1c\x1d", "a b\x1ec"]


@pytest.mark.parametrize("pat", [r"\s", r"\S", r"a\sb", r"[\s]", r"[\sx]+", r"\s+", r"[^\s]",
                                 r"(?a)\s", r"\S\s\S"])
@pytest.mark.parametrize("method", ["contains", "count", "replace", "match", "fullmatch",
                                    "findall", "split"])
def test_whitespace_classes_vs_pandas(pat, method):
    p = pd.Series(VALUES, dtype=object)
    z = zb.Series(VALUES)
    kw = {"replace": {"repl": "_", "regex": True}, "split": {"regex": True}}.get(method, {})
    exp = getattr(p.str, method)(pat, **kw)
    got = getattr(z.str, method)(pat, **kw).to_pandas()
    exp = [list(v) if isinstance(v, list) else v for v in exp]
    got = [list(v) if isinstance(v, (list, np.ndarray)) else v for v in got]
    assert got == exp, [(VALUES[i], g, e) for i, (g, e) in enumerate(zip(got, exp)) if g != e][:5]


def test_ascii_flag_keeps_the_ascii_class():
    z = zb.Series(["a\x1cb", "a b"])
    assert z.str.contains(r"\s", flags=re.ASCII).to_list() == [False, True]
    assert z.str.contains(r"\s").to_list() == [True, True]
