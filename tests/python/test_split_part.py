"""``s.str.split(pat).str[i]`` / ``.str.get(i)``: piece i of each row taken
by the engine without building the list column, against pandas' object
strings (str.split then .str[i]) on random rows with nulls, empty strings,
runs of separators and non-ASCII text: whitespace, literal and regex
separators (groups included), n=, negative and out-of-range i, an empty
column and a categorical.  And the split result, whose lists are built
only when something other than .str[i] needs them, behaves as the list
Series in every other use: dtype, repr, len, iteration, to_pandas,
isinstance, pickle, copy, the other .str methods, assignment into a frame."""

import copy
import pickle

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

PIECES = ["a", "bb", "é", "ß", "中", "😀", "", "x1", "Σς", "  ", ",", ", "]


def _missing(v):
    return v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v))


def values(s):
    return [None if _missing(v) else v for v in s.to_list()]


def rand_strings(n, seed):
    """Rows of 0-6 pieces joined by separators drawn from ' ', ',', '  '
    and '\\t'; 10% null."""
    rng = np.random.default_rng(seed)
    seps = [" ", ",", "  ", "\t", ", "]
    out = []
    for _ in range(n):  # test data only
        if rng.random() < 0.1:
            out.append(None)
            continue
        k = int(rng.integers(0, 7))
        row = ""
        for j in range(k):
            row += PIECES[int(rng.integers(0, len(PIECES)))]
            if j + 1 < k:
                row += seps[int(rng.integers(0, len(seps)))]
        out.append(row)
    return out


CASES = [  # (pat, regex)
    (None, None), (" ", None), (",", None), (", ", False), (r",\s*", None), (r"[ ,]+", True),
    (r"(,)|(\t)", True), ("😀", None), (r"\s", True), ("x1", False),
]


@pytest.mark.parametrize("pat,regex", CASES)
@pytest.mark.parametrize("n", [-1, 0, 1, 2])
def test_split_part_matches_pandas(pat, regex, n):
    data = rand_strings(300, 11)
    s, p = zb.Series(data), pd.Series(data, dtype=object)
    kw = {} if regex is None else {"regex": regex}
    for i in [0, 1, 2, -1, -2, -3, 7, -9]:
        want = [None if _missing(v) else v for v in p.str.split(pat, n=n, **kw).str[i]]
        got = s.str.split(pat, n=n, **kw).str[i]
        assert got.dtype == "string"
        assert values(got) == want, (pat, n, i)
        assert values(s.str.split(pat, n=n, **kw).str.get(i)) == want, (pat, n, i)


def test_split_part_categorical_empty_and_threads():
    data = rand_strings(200, 5)
    p = pd.Series(data, dtype=object)
    c = zb.Series(pd.Series(data, dtype="category"))
    want = [None if _missing(v) else v for v in p.str.split(",").str[-1]]
    assert values(c.str.split(",").str[-1]) == want
    e = zb.Series(["x"]).iloc[:0]
    assert e.str.split().str[0].to_list() == []
    assert e.str.split(",").str[0].dtype == "string"
    assert zb.Series([None, None], dtype="string").str.split().str[0].to_list() == [None, None]
    big = rand_strings(70_000, 9)  # several morsels, on three threads
    old = zb._core.get_num_threads()
    zb._core.set_num_threads(3)
    try:
        s, pb = zb.Series(big), pd.Series(big, dtype=object)
        for i in (0, -1, 3):
            assert values(s.str.split(" ").str[i]) == \
                [None if _missing(v) else v for v in pb.str.split(" ").str[i]]
    finally:
        zb._core.set_num_threads(old)


def test_split_part_keeps_labels_and_name():
    s = zb.Series(["a-b", None, "c"], index=[10, 20, 30], name="w")
    got = s.str.split("-").str[1]
    want = pd.Series(["a-b", None, "c"], index=[10, 20, 30], name="w",
                     dtype=object).str.split("-").str[1]
    assert got.name == "w"
    assert got.index.to_list() == [10, 20, 30]
    assert values(got) == [None if _missing(v) else v for v in want]


def _lists_of(data, *args, **kw):
    """The split list Series (pending) and its fully built twin."""
    s = zb.Series(data, name="w")
    built = s.str.split(*args, **kw)
    built.dtype  # anything but .str[i] builds the lists
    return s.str.split(*args, **kw), built


def test_pending_split_is_the_list_series():
    data = ["a b", None, "", "é ß 中"]
    p = pd.Series(data, dtype=object, name="w").str.split()
    lazy = lambda: zb.Series(data, name="w").str.split()  # noqa: E731
    assert isinstance(lazy(), zb.Series)
    assert type(lazy()).__name__ == "Series"
    assert lazy().dtype == "list<string>"
    assert lazy().name == "w"
    assert len(lazy()) == 4
    assert lazy().shape == (4,)
    assert repr(lazy()) == repr(zb.Series([["a", "b"], None, [], ["é", "ß", "中"]], name="w"))
    assert [None if v is None else list(v) for v in lazy()] == \
        [["a", "b"], None, [], ["é", "ß", "中"]]
    assert lazy().to_list() == [None if v is None else list(v) for v in p]
    got = lazy().to_pandas()
    assert got.dtype == object and got.name == "w"
    assert [list(v) if isinstance(v, list) else None for v in got] == \
        [list(v) if isinstance(v, list) else None for v in p]
    assert got[1] is np.nan  # as pandas' split of a missing str row
    pd.testing.assert_series_equal(lazy().str.len().to_pandas(), p.str.len())
    assert lazy().str.len().to_list() == [2, None, 0, 3]
    assert lazy().str.join("-").to_list() == ["a-b", None, "", "é-ß-中"]
    assert lazy().list[0].to_list() == ["a", None, None, "é"]
    assert lazy().explode().to_list() == ["a", "b", None, None, "é", "ß", "中"]
    # once built it is a plain Series
    s = lazy()
    s.dtype
    assert type(s) is zb.Series
    assert s.str[0].to_list() == ["a", None, None, "é"]
    for proto in (2, 5):
        back = pickle.loads(pickle.dumps(lazy(), protocol=proto))
        assert type(back) is zb.Series
        assert back.to_list() == s.to_list()
    assert copy.copy(lazy()).to_list() == s.to_list()
    assert copy.deepcopy(lazy()).to_list() == s.to_list()
    df = zb.DataFrame({"k": [1, 2, 3, 4]})
    df["parts"] = lazy()
    assert df["parts"].dtype == "list<string>"
    assert df["parts"].to_list() == s.to_list()
    assert zb.DataFrame({"parts": lazy()})["parts"].to_list() == s.to_list()
    assert lazy()[[0, 3]].to_list() == [["a", "b"], ["é", "ß", "中"]]
    assert lazy().isna().to_list() == [False, True, False, False]


def test_pending_split_get_takes_the_piece_without_the_lists():
    s = zb.Series(["a,b", "c"]).str.split(",")
    assert s.str[1].to_list() == ["b", None]
    assert s.str.get(-1).to_list() == ["b", "c"]
    assert s.str[np.int64(-1)].to_list() == ["b", "c"]  # numpy ints take the piece too
    assert type(s) is not zb.Series  # the lists were not built
    assert s.str[0:1].to_list() == [["a"], ["c"]]  # a slice builds the lists
    with pytest.raises(zb.errors.UnsupportedError):
        s.str.upper()
    assert s.str[0].to_list() == ["a", "c"]


RCASES = [None, " ", ",", ", ", "😀", "x1", "  "]


@pytest.mark.parametrize("pat", RCASES)
@pytest.mark.parametrize("n", [-1, 0, 1, 2])
def test_rsplit_part_matches_pandas(pat, n):
    """rsplit(...).str[i] / .str.get(i) take the piece from the engine's
    one-piece path (the scan from the right), as pandas' rsplit lists give it."""
    data = rand_strings(300, 13)
    s, p = zb.Series(data), pd.Series(data, dtype=object)
    for i in [0, 1, 2, -1, -2, -3, 7, -9]:
        want = [None if _missing(v) else v for v in p.str.rsplit(pat, n=n).str[i]]
        pending = s.str.rsplit(pat, n=n)
        got = pending.str[i]
        assert got.dtype == "string"
        assert values(got) == want, (pat, n, i)
        assert values(s.str.rsplit(pat, n=n).str.get(i)) == want, (pat, n, i)
        assert type(pending) is not zb.Series  # the lists were never built


def _is_pending(s):
    return type(s) is not zb.Series and isinstance(s, zb.Series)


@pytest.mark.parametrize("pdtype", [None, object])
@pytest.mark.parametrize("how,args", [("split", (None,)), ("split", (",",)), ("split", (r",\s*",)),
                                      ("split", (r"(,)|(\t)",)), ("rsplit", (None,)),
                                      ("rsplit", (", ",))])
@pytest.mark.parametrize("n", [-1, 1])
def test_len_of_a_pending_split_counts_the_pieces(how, args, n, pdtype):
    """split / rsplit (...).str.len(): the pieces counted by the engine, the
    lists not built; pandas' dtype (float64 with NaN when a row is missing,
    int64 when none is), default str and object columns alike."""
    data = rand_strings(300, 17)
    full = [v for v in data if v is not None]
    for rows in (data, full):
        s, p = zb.Series(rows, name="w"), pd.Series(rows, name="w", dtype=pdtype)
        kw = {"regex": True} if args[0] and len(args[0]) > 2 else {}
        pending = getattr(s.str, how)(*args, n=n, **kw)
        assert _is_pending(pending)
        got = pending.str.len()
        assert _is_pending(pending)  # counted without building the lists
        want = getattr(p.str, how)(*args, n=n, **kw).str.len()
        pd.testing.assert_series_equal(got.to_pandas(), want)
    c = zb.Series(pd.Series(data, dtype="category"))
    want = getattr(pd.Series(data, dtype=object).str, how)(*args, n=n, **kw).str.len()
    pd.testing.assert_series_equal(getattr(c.str, how)(*args, n=n, **kw).str.len().to_pandas(),
                                   want)
