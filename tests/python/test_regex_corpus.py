"""A corpus of regular expressions -- anchors, classes, quantifiers, groups
and back-references, alternation, escapes, Unicode text and classes, and
flags (inline and through ``flags=`` / ``case=``) -- each run through
zambezi's str methods (PCRE2) and pandas' (Python's re) on the same random
strings with nulls, empty strings, newlines and non-ASCII text: contains,
match, fullmatch, count, replace (the whole match bracketed), findall (one
group or none) and extract (patterns with groups) must agree.  Patterns
Python itself refuses raise a zambezi error too."""
import functools
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import missing_as_none, rand_strings

import zambezi as zb

ALPHABET = list("abcAB xyz12_.-,\n\t") + ["é", "É", "ß", "Σ", "σ", "ς", "中", "文", "😀",
                                          "\u3000", "٣", "ab", "  ", "e\u0301", "ﬁ"]
rand_strings = functools.partial(rand_strings, alphabet=ALPHABET, max_len=10)

ANCHORS = [r"^a", r"a$", r"^$", r"\Aa", r"b\Z", r"\bx", r"x\b", r"\Bb", r"a\B", r"^\s",
           r"\s$", r"^[a-c]", r"^.*$", r"^\w+$", r"\b\w+\b", r"\b", r"\B", r"^(?!a)",
           r"(?m)^b", r"(?m)a$", r"(?m)^$", r"\A\Z", r"^\d", r"\d$", r"\b\d", r"$"]
CLASSES = [r"[abc]", r"[^abc]", r"[a-z]", r"[A-Z]", r"[0-9]", r"[^0-9]", r"\d", r"\D",
           r"\w", r"\W", r"\s", r"\S", r".", r"[.]", r"[\d\s]", r"[^\w\s]", r"[a-cx-z]",
           r"[-a]", r"[a-]", r"[]a]", r"[\]]", r"[\\]", r"[ß]", r"[é-ř]", r"[α-ω]", r"[Α-Ω]",
           r"[一-龥]", r"[^\x00-\x7f]", r"[\u00e0-\u00ff]", r"\x61", r"\u00e9", r"\t", r"\n",
           r"[\n\t]", r"[^\n]", r"[\w-]", r"[^\d\W]", r"[_]", r"[\s\S]", r"[^ ]", r"[,.]",
           r"[😀-😀]", r"[\u3000]", r"[^a-zA-Z]"]
QUANTIFIERS = [r"a*", r"a+", r"a?", r"a{2}", r"a{2,}", r"a{1,3}", r"a{,2}", r"a*?", r"a+?",
               r"a??", r"a{2,3}?", r"\d{2,}", r"\w{3}", r".*", r".+", r".?", r".*?b", r"(?:ab)+",
               r"(?:ab)*", r"[ab]{2,4}", r"x+y*", r"\s+", r"\s*", r"é+", r"中{2}", r"😀+",
               r"(?:ab){2}", r"a{0}", r"a{1}", r"(?:a|b){3}", r"\d+\.\d+", r"\w+,\w+",
               r"[a-c]+?", r".{3,5}", r"a{3,}?", r"\S+", r"\W+", r"[^a]*", r"b*a", r"x{1,}y?",
               r"ß{0,1}", r"\w*\d", r".+?\n"]
GROUPS = [r"(a)", r"(a)(b)", r"(?:a)b", r"(?P<n>a)", r"(?P<n>a)(?P=n)", r"(a)\1", r"(\w)\1",
          r"(a)?b", r"(a|b)c", r"((a)b)", r"(?=a)", r"(?!a)", r"(?<=a)b", r"(?<!a)b",
          r"(a)(?=b)", r"(?i:ab)", r"(?:a|b)+", r"(\d)(\d)?", r"(x)?(y)?", r"(é)(ß)?", r"()a",
          r"(|a)", r"(a|)", r"(?P<w>\w+)\s", r"(a)|b", r"a|(b)", r"(?:(a)|(b))c", r"(\s)(\S)",
          r"(.)(.)\2\1", r"(?P<x>\d)(?P<y>\D)", r"(?<=\d)\w", r"(?<!\s)x", r"(\w+)\.",
          r"([^,]*),", r"(a*)b", r"(?=.*\d)\w", r"(?!\d)\w+", r"(Σ|σ)", r"(中)(文)?",
          r"(😀)", r"(?:(\d)|x)+", r"(a)(?:b)(c)?"]
ALTERNATION = [r"a|b", r"ab|cd", r"a|é", r"x|y|z", r"^a|b$", r"a||b", r"(?:a|ab)c", r"中|😀",
               r"\d|\s", r"ab|a", r"a|ab", r"1|12|121", r".|\n", r"Σ|ς", r"é|e", r"^$|a",
               r"\bab|b\b", r"[ab]|\d", r"xyz|xy|x", r"ß|ss", r"\t|\n", r"a(?:b|c|)"]
ESCAPES = [r"\.", r"\-", r"\\", r"\*", r"\+", r"\?", r"\(", r"\)", r"\[", r"\{", r"\|",
           r"\^", r"\$", r"\,", r"\_", r"\ ", r"\x2e", r"\u4e2d", r"\U0001F600",
           r"\N{LATIN SMALL LETTER E WITH ACUTE}", r"\N{GREEK SMALL LETTER FINAL SIGMA}",
           r"\0", r"\x00?a", r"a{,}", r"[{,]", r"\d{1,2}\b", r"\N{CJK UNIFIED IDEOGRAPH-4E2D}"]
UNICODE = [r"é", r"É", r"ß", r"Σ", r"ς", r"σ", r"中文", r"😀", r"\u3000", r"٣", r"ﬁ",
           r"e\u0301", r"[éÉ]", r"[Σσς]", r"\w+é", r"é\b", r"\bß", r"[^\W\d_]+", r"\d+٣?",
           r"[٠-٩]", r"\s\S", r"(?i)σ", r"(?i)Σ", r"(?i)ς", r"(?i)é", r"(?i)É", r"(?i)ß",
           r"(?i)[a-z]+", r"(?i)[α-ω]", r"(?i)ﬁ", r"(?a)\w+", r"(?a)\d", r"(?a)\s", r"(?a)\b\w"]
INLINE_FLAGS = [r"(?s)a.b", r"(?s).", r"(?x) a b", r"(?x)a # comment", r"(?ms)^a.*$",
                r"(?i)AB", r"(?i)aB|c", r"(?i:a)B", r"(?-i:a)b", r"(?m)\n^", r"(?s).{2}",
                r"(?x)[ ]", r"(?x)\ a", r"(?i)(a)\1"]

PATTERNS = [p for group in (ANCHORS, CLASSES, QUANTIFIERS, GROUPS, ALTERNATION, ESCAPES,
                            UNICODE, INLINE_FLAGS) for p in group]
FLAGGED = [  # (pattern, flags) through flags=
    ("ab", re.I), ("É", re.I), ("σ", re.I), ("[A-Z]+", re.I), ("^b", re.M), ("a$", re.M),
    ("^$", re.M), ("a.b", re.S), (".+", re.S), (r"\w+", re.A), (r"\d", re.A), (r"\s+", re.A),
    (r"\b\w", re.A), ("a b # comment", re.X), (r"[a ] b", re.X), ("^a.b$", re.M | re.S),
    ("AB", re.I | re.M), (r"\w", re.I | re.A), ("(a)(b)?", re.I), ("ς", re.I),
]


def test_the_corpus_has_every_kind_and_200_patterns():
    assert len(set(PATTERNS)) == len(PATTERNS)
    assert len(PATTERNS) + len(FLAGGED) >= 200
    for group in (ANCHORS, CLASSES, QUANTIFIERS, GROUPS, ALTERNATION, UNICODE, INLINE_FLAGS):
        assert len(group) >= 14


def _groups(pat, flags=0):
    return re.compile(pat, flags).groups


def _compare(s, p, pat, flags=0):
    """Every method zambezi shares with pandas for one pattern."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # pandas: "has match groups"
        for m in ("contains", "match", "fullmatch"):
            got = getattr(s.str, m)(pat, flags=flags).to_list()
            assert got == missing_as_none(getattr(p.str, m)(pat, flags=flags)), (m, pat, flags)
        got = s.str.count(pat, flags=flags).to_list()
        want = missing_as_none(p.str.count(pat, flags=flags))
        assert got == [None if v is None else int(v) for v in want], ("count", pat, flags)
        got = s.str.replace(pat, r"<\g<0>>", regex=True, flags=flags).to_list()
        assert got == missing_as_none(p.str.replace(pat, r"<\g<0>>", regex=True, flags=flags)), \
            ("replace", pat, flags)
        k = _groups(pat, flags)
        if k <= 1:
            got = s.str.findall(pat, flags=flags).to_list()
            got = [None if v is None else list(v) for v in got]
            assert got == missing_as_none(p.str.findall(pat, flags=flags)), ("findall", pat, flags)
        if k >= 1:
            got = s.str.extract(pat, flags=flags, expand=True).to_pandas()
            want = p.str.extract(pat, flags=flags, expand=True)
            assert list(got.columns) == list(want.columns), ("extract", pat)
            for c in want.columns:
                assert missing_as_none(got[c]) == missing_as_none(want[c]), ("extract", pat, c)


@pytest.fixture(scope="module")
def strings():
    data = rand_strings(400, 23) + ["", "a", "ab", "aab", "ba", "abab", "a\nb", "b\na",
                                    "12.5", "x,y", "ΣΑΣ", "σας", "中文", "e\u0301", "😀😀",
                                    "a b", "A B"]
    return zb.Series(data), pd.Series(data, dtype=object)


@pytest.mark.parametrize("pat", PATTERNS)
def test_pattern_as_python_re(pat, strings):
    _compare(*strings, pat)


@pytest.mark.parametrize("pat,flags", FLAGGED)
def test_flagged_pattern_as_python_re(pat, flags, strings):
    _compare(*strings, pat, flags)
