"""pandas' query / eval / pd.eval find the names an expression uses in the
calling code's frame; under the accelerator the proxies add frames in
between, and these must still find them: the same output as plain pandas."""

from conftest import same_under_accelerator

SCRIPT = '''
import pandas as pd

thresh = 2
df = pd.DataFrame({"a": [1, 2, 3, 4], "b": [4.5, 3.5, 2.5, 1.5]})


def inner():
    lim = 3
    print(df.query("a > @lim").to_dict("list"))
    print(df.eval("c = a * @lim + b").to_dict("list"))
    print(pd.eval("df.a + df.b * lim").tolist())


inner()
print(df.query("a > @thresh and b < 3").to_dict("list"))
lhs, rhs = df.a, df.b
print(pd.eval("lhs < rhs").tolist())
print(df.query("a > @x", local_dict={"x": 1}).to_dict("list"))


def evaluate(expr):  # pandas' level: names of the frame one above the caller
    return pd.eval(expr, level=1)


def outer():
    mine = df.a * 10
    return evaluate("mine + 1").tolist()


print(outer())
'''


def test_query_and_eval_see_the_callers_names(tmp_path):
    out = same_under_accelerator(tmp_path, SCRIPT)
    assert out.count("\n") == 7  # every line printed
