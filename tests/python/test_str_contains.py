"""str.contains / count / match / fullmatch with the required-literal
prefilter (src/cpu/regex_literal.c): random patterns built from literals,
escapes, classes, groups, quantifiers, anchors and alternations, on random
rows with nulls and non-ASCII text, against Python's re row by row (the
oracle: pandas' object-dtype str methods call it the same way)."""

import random
import re

import pytest

import zambezi as zb

_ATOMS = ["ab", "é", "-", "x", "ß", "1", r"\d", r"\w", r"\s", r"\.", ".", "[a-c]", "[^x]",
          "(ab)", "(?:é|x)", "[)|]", r"\b", "١"]
_QUANT = ["", "", "", "?", "*", "+", "{2}", "{1,3}", "+?"]
_ALPHABET = "ab-x.é١٢ 3cßy|)"


def _pattern(rng):
    parts = []
    if rng.random() < 0.15:
        parts.append("^")
    for _ in range(rng.randint(1, 5)):
        atom = rng.choice(_ATOMS)
        q = rng.choice(_QUANT) if atom not in (r"\b",) else ""
        parts.append(atom + q)
    if rng.random() < 0.1:
        parts.append("|" + rng.choice(["x", "ab", r"\d"]))
    if rng.random() < 0.15:
        parts.append("$")
    return "".join(parts)


def _rows(rng, n=60):
    out = []
    for _ in range(n):
        if rng.random() < 0.1:
            out.append(None)
        else:
            out.append("".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, 14))))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_regex_ops_match_python_re(seed):
    rng = random.Random(seed)
    rows = _rows(rng)
    s = zb.Series(rows, dtype="string")
    for _ in range(60):
        pat = _pattern(rng)
        rx = re.compile(pat)
        want = {
            "contains": [None if r is None else bool(rx.search(r)) for r in rows],
            "match": [None if r is None else bool(rx.match(r)) for r in rows],
            "fullmatch": [None if r is None else bool(rx.fullmatch(r)) for r in rows],
            "count": [None if r is None else len(rx.findall(r)) for r in rows],
        }
        for op, exp in want.items():
            got = getattr(s.str, op)(pat).to_list()
            assert got == exp, f"str.{op}({pat!r})"


def test_contains_plain_text_and_literal_late_in_long_rows():
    # the literal far into a long row: the search starts near it
    long = "a" * 5000 + "١٢-x" + "b" * 300
    rows = [long, long.replace("-x", "-y"), None, "é-x", "12-x"]
    s = zb.Series(rows, dtype="string")
    for pat in (r"\d{2}-x", "-x", r"\d+-x$", r"a\d-x", "é-x"):
        exp = [None if r is None else bool(re.search(pat, r)) for r in rows]
        assert s.str.contains(pat).to_list() == exp, pat
        cnt = [None if r is None else len(re.findall(pat, r)) for r in rows]
        assert s.str.count(pat).to_list() == cnt, pat
