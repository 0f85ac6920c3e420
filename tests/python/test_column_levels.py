"""Frames whose column labels are a MultiIndex (a group-by with several
aggregations, a pivot_table of several values, concat with keys), side by
side with pandas: rename maps each level's values, melt gives a variable
column per level, a merge between frames of different column depths is
refused, and tuple keys of concat give one level per element.  zambezi
flattened the labels in each of these (found by side-by-side scripts)."""

import pandas as pd
import pytest

import zambezi as zb


def _grouped(m):
    df = m.DataFrame({"k": ["a", "a", "b"], "c": ["x", "y", "x"], "v": [1, 2, 3],
                      "w": [1.5, 2.5, 3.5]})
    return df, df.groupby("k").agg({"v": ["sum", "max"], "w": "mean"})


@pytest.mark.parametrize("how", [
    lambda g: g.rename(columns={"v": "V", "max": "MAX"}),
    lambda g: g.rename(columns=str.upper),
    lambda g: g.rename({"w": "W"}, axis=1),
])
def test_rename_maps_each_level_as_pandas(how):
    want = how(_grouped(pd)[1])
    got = how(_grouped(zb)[1]).to_pandas()
    pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize("kw", [{}, {"var_name": "x"}, {"var_name": ["a", "b"]},
                                {"ignore_index": False}, {"value_name": "val"}])
def test_melt_gives_a_variable_column_per_level_as_pandas(kw):
    want = _grouped(pd)[1].melt(**kw)
    got = _grouped(zb)[1].melt(**kw).to_pandas()
    pd.testing.assert_frame_equal(got, want, check_dtype=False)


def test_melt_of_a_pivot_table_names_the_unnamed_level_nan_as_pandas():
    def run(m):
        df = _grouped(m)[0]
        return df.pivot_table(index="k", values=["v", "w"], columns="c", aggfunc="sum").melt()
    want, got = run(pd), run(zb).to_pandas()
    assert list(map(str, got.columns)) == list(map(str, want.columns)) == ["nan", "c", "value"]
    pd.testing.assert_frame_equal(got.set_axis(range(3), axis=1),
                                  want.set_axis(range(3), axis=1), check_dtype=False)


@pytest.mark.parametrize("call", [
    lambda g, t: g.join(t), lambda g, t: t.join(g),
    lambda g, t: g.merge(t, left_index=True, right_index=True),
])
def test_merge_of_different_column_depths_raises_as_pandas(call):
    def run(m):
        df, g = _grouped(m)
        return call(g, df.groupby("k")[["v"]].sum().rename(columns={"v": "tot"}))
    with pytest.raises(pd.errors.MergeError, match="different levels"):
        run(pd)
    with pytest.raises(ValueError, match="different levels"):
        run(zb)


@pytest.mark.parametrize("call", [
    lambda m, a, b, s: m.concat({("L", 1): a, ("R", 2): b}, axis=1),
    lambda m, a, b, s: m.concat([a, b], keys=[("L", 1), ("R", 2)], axis=1),
    lambda m, a, b, s: m.concat([a, s], keys=[("L", 1), ("R", 2)], axis=1),
    lambda m, a, b, s: m.concat([a, b], keys=["L", "R"], axis=1),
])
def test_concat_tuple_keys_give_a_level_per_element_as_pandas(call):
    def run(m):
        return call(m, m.DataFrame({"x": [1, 2]}), m.DataFrame({"x": [3, 4]}),
                    m.Series([5, 6], name="s"))
    pd.testing.assert_frame_equal(run(zb).to_pandas(), run(pd))
