"""zambezi frames where pandas frames go: numpy's functions, scikit-learn,
seaborn, plotly express, altair, narwhals, statsmodels, matplotlib
(``df.plot``), multiprocessing / joblib and Jupyter's hooks.

Each test runs the library once on a zambezi frame and once on the same
data as a pandas frame and compares what comes back: scores and
coefficients, the data plotted as read back from the figure objects, the
rows returned.  Each library is optional: its tests skip when it is not
installed (scripts/setup.sh installs them all).
"""

import concurrent.futures
import multiprocessing
import operator
import pickle

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import InvalidValueError, UnsupportedError

from pandas_compare import SUM_TOL, assert_frame_like, assert_series_like


def _frame(n=40, seed=0, nulls=True):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = rng.integers(-5, 50, n).astype(np.float64)
    if nulls:
        a[rng.random(n) < 0.15] = np.nan
        b[rng.random(n) < 0.15] = np.nan
    return pd.DataFrame({
        "a": a,
        "b": b,
        "k": rng.integers(1, 9, n),
        "g": rng.choice(["x", "y", "z"], n),
    })


@pytest.fixture
def pair():
    """(zambezi frame, the same pandas frame).  Emptied after the test:
    pytest keeps the last test's fixture values while the session's
    engine-memory check runs (conftest)."""
    pdf = _frame()
    both = [zb.DataFrame(pdf), pdf]
    yield both
    both.clear()


@pytest.fixture
def plt():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as pyplot

    yield pyplot
    pyplot.close("all")  # a figure keeps the data it was given alive


# -- numpy ------------------------------------------------------------------

@pytest.mark.parametrize("fn", [np.sum, np.mean, np.min, np.max, np.std, np.var, np.prod])
@pytest.mark.parametrize("axis", [0, 1, None])
def test_numpy_reductions_on_a_frame(pair, fn, axis):
    zdf, pdf = pair
    got = fn(zdf[["a", "b", "k"]], axis=axis)
    exp = fn(pdf[["a", "b", "k"]], axis=axis)
    if axis is None:  # one scalar over every value, as pandas 3
        assert np.isscalar(got) or np.ndim(got) == 0
        assert got == pytest.approx(exp, rel=1e-9)
    else:
        assert_series_like(got, exp, f"{fn.__name__} axis={axis}", **SUM_TOL)


def test_frame_reductions_axis_none_and_positional_axis(pair):
    zdf, pdf = pair
    num_z, num_p = zdf[["a", "b", "k"]], pdf[["a", "b", "k"]]
    assert_series_like(num_z.sum(1), num_p.sum(axis=1), "sum(1)", **SUM_TOL)
    assert np.isnan(num_z.sum(axis=None, skipna=False))  # 'a' has a missing value
    assert num_z.std(axis=None, ddof=0) == pytest.approx(num_p.std(axis=None, ddof=0))
    assert num_z[["k"]].max(axis=None) == num_p[["k"]].max(axis=None)
    assert zdf.mean(axis=None, numeric_only=True) == pytest.approx(
        pdf.mean(axis=None, numeric_only=True))


@pytest.mark.parametrize("fn", [np.sum, np.mean, np.std, np.min, np.argmax, np.cumsum])
def test_numpy_functions_on_a_series(pair, fn):
    zdf, pdf = pair
    got, exp = fn(zdf["a"]), fn(pdf["a"])
    if isinstance(exp, pd.Series):
        assert_series_like(got, exp, fn.__name__, **SUM_TOL)
    else:
        assert got == pytest.approx(exp, rel=1e-9, nan_ok=True)


def test_numpy_round_clip_and_ufuncs_keep_the_type(pair):
    zdf, pdf = pair
    assert_series_like(np.round(zdf["a"], 2), np.round(pdf["a"], 2), "round")
    assert_series_like(np.clip(zdf["b"], 0, 10), np.clip(pdf["b"], 0, 10), "clip")
    assert_series_like(np.log(zdf["b"].abs() + 1), np.log(pdf["b"].abs() + 1), "log",
                       **SUM_TOL)
    num_z, num_p = zdf[["a", "b", "k"]], pdf[["a", "b", "k"]]
    assert_frame_like(np.sqrt(num_z.abs()), np.sqrt(num_p.abs()), "sqrt frame")
    assert_frame_like(np.add(num_z, 2), np.add(num_p, 2), "add frame")
    assert_frame_like(np.cumsum(num_z), np.cumsum(num_p), "cumsum frame", **SUM_TOL)
    q_z, r_z = np.divmod(num_z[["k"]], 3)
    q_p, r_p = np.divmod(num_p[["k"]], 3)
    assert_frame_like(q_z, q_p, "divmod q")
    assert_frame_like(r_z, r_p, "divmod r")
    # np.where gives an array, as it does for pandas
    np.testing.assert_array_equal(np.where(zdf["k"] > 4, zdf["k"], 0),
                                  np.where(pdf["k"] > 4, pdf["k"], 0))


def test_numpy_refuses_out_and_keepdims(pair):
    zdf, _ = pair
    with pytest.raises(UnsupportedError, match="out="):
        np.max(zdf["a"], out=np.empty(()))
    with pytest.raises(UnsupportedError, match="out="):
        np.sum(zdf[["a", "b"]], axis=0, out=np.empty(2))
    with pytest.raises(UnsupportedError, match="keepdims"):
        np.sum(zdf[["a"]], keepdims=True)
    with pytest.raises(InvalidValueError, match="one axis"):
        np.sum(zdf["a"], axis=1)
    assert isinstance(np.sum(zdf["k"], dtype="float32"), np.float32)


# -- scikit-learn -----------------------------------------------------------

def test_sklearn_fit_predict_and_feature_names():
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.preprocessing import StandardScaler

    pdf = _frame(60, seed=1, nulls=False)
    pdf["y"] = (pdf["a"] + 0.1 * pdf["b"] > 1).astype(np.int64)
    zdf = zb.DataFrame(pdf)
    X = ["a", "b", "k"]
    zm = LinearRegression().fit(zdf[X], zdf["b"] * 2 + zdf["a"])
    pm = LinearRegression().fit(pdf[X], pdf["b"] * 2 + pdf["a"])
    np.testing.assert_allclose(zm.coef_, pm.coef_, rtol=1e-9, atol=1e-12)
    assert list(zm.feature_names_in_) == X
    np.testing.assert_allclose(zm.predict(zdf[X]), pm.predict(pdf[X]), rtol=1e-9)
    zc = LogisticRegression().fit(zdf[X], zdf["y"])
    pc = LogisticRegression().fit(pdf[X], pdf["y"])
    assert list(zc.feature_names_in_) == X
    np.testing.assert_array_equal(zc.predict(zdf[X]), pc.predict(pdf[X]))
    assert zc.score(zdf[X], zdf["y"]) == pc.score(pdf[X], pdf["y"])
    # set_output(transform="pandas") still gives pandas frames
    out = StandardScaler().set_output(transform="pandas").fit_transform(zdf[X])
    exp = StandardScaler().set_output(transform="pandas").fit_transform(pdf[X])
    assert isinstance(out, pd.DataFrame)
    pd.testing.assert_frame_equal(out, exp)


# -- seaborn, plotly express, altair, narwhals ------------------------------

def test_seaborn_data_is_a_zambezi_frame(pair, plt):
    sns = pytest.importorskip("seaborn")
    zdf, pdf = pair
    order = ["x", "y", "z"]
    zax = sns.barplot(data=zdf, x="g", y="b", order=order, errorbar=None)
    _, pax = plt.subplots()
    pax = sns.barplot(data=pdf, x="g", y="b", order=order, errorbar=None, ax=pax)
    heights = [p.get_height() for p in zax.patches]
    assert heights == [p.get_height() for p in pax.patches]
    assert heights == pytest.approx(pdf.groupby("g")["b"].mean().loc[order].tolist())
    _, (zax, pax) = plt.subplots(1, 2)
    sns.histplot(data=zdf, x="a", hue="g", bins=5, ax=zax)
    sns.histplot(data=pdf, x="a", hue="g", bins=5, ax=pax)
    assert _patches(zax) == _patches(pax) and len(zax.patches) == 15


def test_plotly_express_takes_zambezi_frames_and_series(pair):
    pytest.importorskip("plotly")
    import plotly.express as px

    zdf, pdf = pair
    zf = px.scatter(zdf, x="a", y="b", color="g")
    pf = px.scatter(pdf, x="a", y="b", color="g")
    assert len(zf.data) == len(pf.data)
    for z, p in zip(zf.data, pf.data):
        assert z.name == p.name
        np.testing.assert_array_equal(z.x, p.x)
        np.testing.assert_array_equal(z.y, p.y)
    zf = px.line(x=zdf["k"], y=zdf["a"])
    np.testing.assert_array_equal(zf.data[0].x, pdf["k"].to_numpy())
    np.testing.assert_array_equal(zf.data[0].y, pdf["a"].to_numpy())


def test_altair_chart_data(pair):
    alt = pytest.importorskip("altair")
    zdf, pdf = pair
    z = alt.Chart(zdf).mark_point().encode(x="a", y="b", color="g").to_dict()
    p = alt.Chart(pdf).mark_point().encode(x="a", y="b", color="g").to_dict()
    assert z["encoding"] == p["encoding"]  # the types altair inferred (quantitative ...)
    assert list(z["datasets"].values()) == list(p["datasets"].values())


def test_narwhals_from_native_is_eager(pair):
    nw = pytest.importorskip("narwhals")
    zdf, pdf = pair
    frame = nw.from_native(zdf, eager_only=True)
    assert frame.columns == list(pdf.columns)
    got = frame.filter(nw.col("k") > 3).select("k", "g").to_pandas()
    exp = pdf.loc[pdf["k"] > 3, ["k", "g"]]
    pd.testing.assert_frame_equal(got.reset_index(drop=True), exp.reset_index(drop=True))
    s = nw.from_native(zdf["k"], series_only=True)
    assert s.sum() == pdf["k"].sum() and s.name == "k"
    assert nw.dependencies.is_into_dataframe(zdf)


@pytest.mark.filterwarnings("ignore:The Dataframe Interchange Protocol is deprecated")
def test_interchange_protocol(pair):
    zdf, pdf = pair
    proto = zdf.__dataframe__()
    assert list(proto.column_names()) == list(pdf.columns)
    assert proto.num_rows() == len(pdf)
    back = pd.api.interchange.from_dataframe(zdf)
    pd.testing.assert_frame_equal(back[["a", "b", "k"]], pdf[["a", "b", "k"]])


@pytest.mark.filterwarnings("ignore:Using DataFrame data structures with formula")
def test_statsmodels_formula(pair):
    pytest.importorskip("statsmodels")
    import statsmodels.formula.api as smf

    zdf, pdf = pair
    zr = smf.ols("b ~ a + k", data=zdf).fit()
    pr = smf.ols("b ~ a + k", data=pdf).fit()
    pd.testing.assert_series_equal(zr.params, pr.params, rtol=1e-9)
    assert zr.nobs == pr.nobs  # rows with a missing value dropped the same way


# -- plotting -----------------------------------------------------------------

def _lines(ax):
    return [(ln.get_xdata().tolist(), ln.get_ydata().tolist()) for ln in ax.get_lines()]


def _patches(ax):
    """Bars as (x, y, width, height), pie wedges as (theta1, theta2)."""
    return [(p.theta1, p.theta2) if hasattr(p, "theta1") else
            (p.get_x(), p.get_y(), p.get_width(), p.get_height()) for p in ax.patches]


@pytest.mark.parametrize("kind", ["line", "bar", "barh", "hist", "box", "kde", "area",
                                  "scatter", "hexbin", "pie"])
def test_df_plot_kinds_match_pandas(plt, kind):
    if kind == "kde":
        pytest.importorskip("scipy")
    pdf = _frame(12, seed=3)[["a", "b", "k"]]
    pdf["a"] = pdf["a"].abs()  # stacked areas need one sign per column
    zdf = zb.DataFrame(pdf)
    kw = {"x": "a", "y": "b"} if kind in ("scatter", "hexbin") else {}
    if kind == "pie":
        kw = {"y": "k"}
    _, (zax, pax) = plt.subplots(1, 2)
    assert zdf.plot(kind=kind, ax=zax, **kw) is zax
    pdf.plot(kind=kind, ax=pax, **kw)
    assert _lines(zax) == _lines(pax)
    assert _patches(zax) == _patches(pax)
    for zc, pc in zip(zax.collections, pax.collections):
        np.testing.assert_array_equal(zc.get_offsets(), pc.get_offsets())
        if kind == "hexbin":
            np.testing.assert_array_equal(zc.get_array(), pc.get_array())


def test_series_plot_and_plt_plot(plt):
    pdf = _frame(15, seed=4)
    zs, ps = zb.Series(pdf["a"]), pdf["a"]
    _, (ax, bx) = plt.subplots(1, 2)
    assert _patches(zs.plot.hist(bins=4, ax=ax)) == _patches(ps.plot.hist(bins=4, ax=bx))
    _, (ax, bx) = plt.subplots(1, 2)
    assert _lines(zs.plot(ax=ax)) == _lines(ps.plot(ax=bx))
    _, (ax, bx) = plt.subplots(1, 2)
    ax.plot(zs)  # through __array__
    bx.plot(ps)
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), bx.get_lines()[0].get_ydata())


# -- processes ------------------------------------------------------------------

def test_pool_process_pool_executor_and_joblib_move_frames(pair):
    zdf, pdf = pair
    parts = [zdf.iloc[:20], zdf.iloc[20:]]
    ctx = multiprocessing.get_context("spawn")  # fork with the engine's threads is unsafe
    total = operator.methodcaller("sum", numeric_only=True)
    with ctx.Pool(1) as pool:
        got = pool.map(total, parts)
    exp = [pdf.iloc[:20].sum(numeric_only=True), pdf.iloc[20:].sum(numeric_only=True)]
    for g, e in zip(got, exp):
        assert_series_like(g, e, "Pool.map", **SUM_TOL)
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as ex:
        back = list(ex.map(operator.methodcaller("head", 30), parts))
    assert_frame_like(zb.concat(back), pdf, "ProcessPoolExecutor")
    joblib = pytest.importorskip("joblib")
    got = joblib.Parallel(n_jobs=2)(joblib.delayed(total)(p) for p in parts)
    for g, e in zip(got, exp):
        assert_series_like(g, e, "joblib", **SUM_TOL)


def test_pickle_protocol_5_sends_buffers_out_of_band():
    s = zb.Series(np.arange(100_000, dtype=np.int64), name="n")
    buffers = []
    payload = pickle.dumps(s, protocol=5, buffer_callback=buffers.append)
    assert len(payload) < 2_000 and sum(b.raw().nbytes for b in buffers) >= 800_000
    back = pickle.loads(payload, buffers=buffers)
    assert back.name == "n" and back.sum() == s.sum()


# -- Jupyter --------------------------------------------------------------------

def test_repr_html_truncates_by_the_display_options():
    zdf = zb.DataFrame({"a": np.arange(30), "b": [f"s{i}" for i in range(30)]})
    full = zdf._repr_html_()
    assert full.count("<tr>") == 1 + 10 + 1  # the dtype row, 5 + 5 rows and "..."
    assert "30 rows &times; 2 columns" in full
    with zb.option_context("display.max_rows", None):
        assert zdf._repr_html_().count("<tr>") == 1 + 30
        assert len(repr(zdf).splitlines()) == 2 + 30 + 2
    with zb.option_context("display.max_rows", 6, "display.min_rows", 4):
        html = zdf._repr_html_()
        assert html.count("<tr>") == 1 + 4 + 1
        assert "<th>1</th>" in html and "<th>28</th>" in html and "<th>2</th>" not in html
    assert zb.get_option("display.max_rows") == 20  # restored
    with pytest.raises(InvalidValueError, match="display.max_rows"):
        zb.set_option("display.max_rows", -1)
    with pytest.raises(InvalidValueError, match="no option"):
        zb.get_option("display.nothing")


def test_style_and_dir():
    pytest.importorskip("jinja2")
    pdf = _frame(5, seed=5)
    zdf = zb.DataFrame(pdf)
    assert zdf.style.set_uuid("t").highlight_max(subset=["k"]).to_html() == \
        pdf.style.set_uuid("t").highlight_max(subset=["k"]).to_html()
    names = dir(zb.DataFrame({"price": [1], "not an identifier": [2]}))
    assert "price" in names and "not an identifier" not in names and "groupby" in names
