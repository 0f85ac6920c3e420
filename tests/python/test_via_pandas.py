"""The formats handed to pandas (zambezi.io.via_pandas) against pandas run
side by side on the same data: what zambezi reads equals what pandas
reads (as a zambezi frame), what zambezi writes pandas reads back equal,
and the text renderings of a frame made from pandas equal pandas' own
(so the conversion to pandas keeps dtypes, missing values and labels).
Libraries a format needs (openpyxl, lxml, tabulate, jinja2) skip their
test when missing; sqlite3 is Python's own."""

import io
import sqlite3

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


def _frame():
    return pd.DataFrame({"city": ["Maun", "Tete", None, "Gweru"],
                         "n": [3, 14, 7, 0],
                         "v": [1.5, np.nan, -2.25, 8.0],
                         "ok": [True, False, True, True]},
                        index=[10, 11, 12, 13])


def _same(z, p):
    pd.testing.assert_frame_equal(z.to_pandas(), zb.from_pandas(p).to_pandas())


def test_sql_round_trip_and_chunks():
    p = _frame()
    con = sqlite3.connect(":memory:")
    assert zb.from_pandas(p).to_sql("t", con, index_label="i") == len(p)
    want = pd.read_sql("SELECT * FROM t ORDER BY i", con)
    _same(zb.read_sql("SELECT * FROM t ORDER BY i", con), want)
    _same(zb.read_sql_query("SELECT city, n FROM t WHERE n > 2", con),
          pd.read_sql_query("SELECT city, n FROM t WHERE n > 2", con))
    chunks = list(zb.read_sql("SELECT * FROM t ORDER BY i", con, chunksize=3))
    assert [len(c) for c in chunks] == [3, 1]
    assert all(isinstance(c, zb.DataFrame) for c in chunks)
    _same(zb.concat(chunks, ignore_index=True), want)
    zb.Series([1.0, None], name="s").to_sql("u", con, index=False)
    assert con.execute("SELECT COUNT(*), COUNT(s) FROM u").fetchone() == (2, 1)


def test_excel(tmp_path):
    pytest.importorskip("openpyxl")
    path = str(tmp_path / "t.xlsx")
    p = _frame()
    zb.from_pandas(p).to_excel(path, sheet_name="one")
    with pd.ExcelWriter(path, mode="a") as w:
        p.head(2).to_excel(w, sheet_name="two", index=False)
    _same(zb.read_excel(path, index_col=0), pd.read_excel(path, index_col=0))
    both = zb.read_excel(path, sheet_name=None)
    want = pd.read_excel(path, sheet_name=None)
    assert list(both) == list(want) == ["one", "two"]
    for k in want:
        _same(both[k], want[k])


def test_html_xml_fwf_table():
    p = _frame()
    html = p.to_html()
    pytest.importorskip("lxml")
    got, want = zb.read_html(io.StringIO(html)), pd.read_html(io.StringIO(html))
    assert len(got) == len(want) == 1
    _same(got[0], want[0])
    xml = p.to_xml(parser="etree")
    _same(zb.read_xml(io.StringIO(xml), parser="etree"),
          pd.read_xml(io.StringIO(xml), parser="etree"))
    text = p.to_string()
    _same(zb.read_fwf(io.StringIO(text)), pd.read_fwf(io.StringIO(text)))
    tsv = p.to_csv(sep="\t")
    _same(zb.read_table(io.StringIO(tsv)), pd.read_table(io.StringIO(tsv)))


def test_stata_orc(tmp_path):
    p = _frame().drop(columns="ok").fillna({"city": ""})
    path = str(tmp_path / "t.dta")
    zb.from_pandas(p).to_stata(path)
    _same(zb.read_stata(path), pd.read_stata(path))
    pytest.importorskip("pyarrow.orc")
    path = str(tmp_path / "t.orc")
    zb.from_pandas(p.reset_index(drop=True)).to_orc(path)
    _same(zb.read_orc(path), pd.read_orc(path))


@pytest.mark.parametrize("how", ["to_string", "to_html", "to_latex", "to_markdown"])
def test_renderings_equal_pandas(how):
    if how == "to_latex":
        pytest.importorskip("jinja2")
    if how == "to_markdown":
        pytest.importorskip("tabulate")
    p = _frame()
    assert getattr(zb.from_pandas(p), how)() == getattr(p, how)()
    if how != "to_html":  # pandas' Series has no to_html
        s = p["v"]
        assert getattr(zb.from_pandas(s), how)() == getattr(s, how)()
    assert zb.from_pandas(p).to_string(index=False, columns=["n"]) == \
        p.to_string(index=False, columns=["n"])


def test_json_normalize_like_pandas():
    rows = [{"id": 1, "city": {"name": "Maun", "pop": 60}, "trips": [{"km": 3}, {"km": 5}]},
            {"id": 2, "city": {"name": "Tete"}, "trips": [{"km": 7}]}]
    _same(zb.json_normalize(rows, record_path="trips", meta=["id"]),
          pd.json_normalize(rows, record_path="trips", meta=["id"]))
    flat = [{k: v for k, v in r.items() if k != "trips"} for r in rows]
    _same(zb.json_normalize(flat), pd.json_normalize(flat))
    _same(zb.json_normalize(flat, sep="_"), pd.json_normalize(flat, sep="_"))
    # what a column cannot hold (lists of dicts, left as they are) is named
    with pytest.raises(zb.errors.DTypeError, match="'trips'"):
        zb.json_normalize(rows)
