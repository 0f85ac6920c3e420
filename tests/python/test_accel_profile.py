"""zambezi.pandas's profile per line of the user's code: ``--profile``
prints, and ``--profile-json`` writes, for each file:line that made calls,
what zambezi and pandas served there with time and fallback reasons; the
IPython cell magic ``%%zambezi.pandas.profile`` does the same for one cell
(tested with a stand-in shell: IPython is not a test dependency).

The expected lines and counts are read off the scripts below by hand.
Subprocesses, as in test_accel.py: installing rewires sys.modules.
"""

import json

from test_accel import _run

# Line numbers matter: the assertions name them.
SCRIPT = '''\
import numpy as np
import pandas as pd
import helper_mod
df = pd.DataFrame({"k": np.arange(12) % 3, "v": np.arange(12.0)})
g = df.groupby("k").v.sum()
for _ in range(2):
    s = df.v.get(7)
def f(frame):
    return frame.v.get(3)
k = f(df)
h = helper_mod.total(df)
print(g.tolist(), round(float(s), 6), round(float(k), 6), h)
'''

# A second file whose calls are attributed to it, not to the script's line.
HELPER = '''\
def total(frame):
    return float(frame.v.sum())
'''


def _write(tmp_path):
    (tmp_path / "helper_mod.py").write_text(HELPER)
    script = tmp_path / "lines.py"
    script.write_text(SCRIPT)
    return script


def _by_line(lines):
    out = {}
    for x in lines:
        out.setdefault((x["file"].rsplit("/", 1)[-1], x["line"]), {})[x["function"]] = x
    return out


def test_profile_per_line_in_text_and_json(tmp_path):
    script = _write(tmp_path)
    prof = tmp_path / "p.json"
    p = _run(["-m", "zambezi.pandas", "--profile", f"--profile-json={prof}", str(script)],
             {"ZAMBEZI_PANDAS_MIN_ROWS": "0"}, cwd=tmp_path)
    # v = 0..11, k = v % 3: sums 0+3+6+9, 1+4+7+10, 2+5+8+11; v.get(label)
    # on labels 0..11 is the value at that label
    assert p.stdout == "[18.0, 22.0, 26.0] 7.0 3.0 66.0\n"
    data = json.loads(prof.read_text())
    lines = _by_line(data["lines"])
    # line 5: groupby, the column of the groupby and its sum, all on zambezi
    assert lines[("lines.py", 5)]["DataFrame.groupby"]["fast_calls"] == 1
    assert lines[("lines.py", 5)]["SeriesGroupBy.sum"]["fast_calls"] == 1
    assert lines[("lines.py", 5)]["DataFrame.groupby"]["code"] == 'g = df.groupby("k").v.sum()'
    # line 7, run twice: zambezi has no Series.get, pandas serves it, the reason is kept
    # per line
    ac = lines[("lines.py", 7)]["Series.get"]
    assert (ac["fast_calls"], ac["slow_calls"]) == (0, 2)
    assert list(ac["fallback_reasons"].values()) == [2]
    assert "AttributeError" in next(iter(ac["fallback_reasons"]))
    # a call inside a function: the line inside the function (9), not the call site (10)
    assert lines[("lines.py", 9)]["Series.get"]["slow_calls"] == 1
    assert ("lines.py", 10) not in lines
    # a call made in another file is that file's line
    assert lines[("helper_mod.py", 2)]["Series.sum"]["fast_calls"] == 1
    assert ("lines.py", 11) not in lines
    # the per-line counts add up to the per-function ones
    for name, f in data["functions"].items():
        per_line = [fs[name] for fs in lines.values() if name in fs]
        assert sum(x["fast_calls"] for x in per_line) == f["fast_calls"], name
        assert sum(x["slow_calls"] for x in per_line) == f["slow_calls"], name
    # the text report shows the same, one block per line
    err = p.stderr
    assert "per line" in err
    block = err[err.index("lines.py:7"):].splitlines()
    assert block[0] == "lines.py:7  s = df.v.get(7)"
    # under it: df.v (served by zambezi, twice) and get (by pandas, twice)
    rows = {r.split()[0]: r for r in block[1:3]}
    assert rows["DataFrame.v"].split()[1] == "2"
    assert rows["Series.get"].split()[1:4] == ["0", "0.0000", "2"]
    assert "AttributeError" in rows["Series.get"] and \
        rows["Series.get"].endswith("x 2")


# The stand-in for IPython's InteractiveShell: the two methods the
# extension uses, with IPython's signatures; run_cell compiles the cell under
# a cell name and puts its source in linecache, as IPython does.
MAGIC = r'''
import linecache, sys
import zambezi.pandas as zp

class Shell:
    def __init__(self):
        self.magics, self.ns, self.n = {}, {}, 0
    def register_magic_function(self, func, magic_kind="line", magic_name=None):
        self.magics[(magic_kind, magic_name or func.__name__)] = func
    def run_cell(self, cell):
        self.n += 1
        name = f"<cell-{self.n}>"
        linecache.cache[name] = (len(cell), None, cell.splitlines(True), name)
        exec(compile(cell, name, "exec"), self.ns)

sh = Shell()
zp.load_ipython_extension(sh)
sh.run_cell("import pandas as pd\n"
            "df = pd.DataFrame({'k': [1, 1, 2], 'v': [1.0, 2.0, 4.0]})\n")
# no profile asked for yet: calls are counted, lines are not recorded
d = zp.profile_report(as_dict=True)
print("before:", d["lines"], d["slow_calls"])
magic = sh.magics[("cell", "zambezi.pandas.profile")]
magic("", "g = df.groupby('k').v.sum()\n"
          "s = df.v.get(1)\n")
print("result:", sh.ns["g"].tolist(), round(float(sh.ns["s"]), 6))
d = zp.profile_report(as_dict=True)
print("session:", d["functions"]["DataFrame.__init__"]["slow_calls"],
      d["functions"]["Series.get"]["slow_calls"], sorted({x["file"] for x in d["lines"]}))
'''


def test_cell_magic_with_a_stand_in_shell(tmp_path):
    path = tmp_path / "magic.py"
    path.write_text(MAGIC)
    out = _run([str(path)], {"ZAMBEZI_PANDAS_MIN_ROWS": "0"}).stdout
    before, out = out.split("\n", 1)
    assert before == "before: [] 1"
    report, rest = out.split("result:")
    # only the cell's calls: the frame built in the first cell is not in it
    assert report.startswith("zambezi.pandas profile: ")
    assert "DataFrame.__init__" not in report
    rows = report[report.index("per line"):].splitlines()
    assert "<cell-2>:1  g = df.groupby('k').v.sum()" in rows
    i = rows.index("<cell-2>:2  s = df.v.get(1)")
    ac = [r for r in rows[i + 1:i + 3] if r.split()[0] == "Series.get"][0]
    assert ac.split()[1:4] == ["0", "0.0000", "1"] and "AttributeError" in ac
    # groupby sums: k=1 -> 1+2, k=2 -> 4; v.get(1): the value at label 1
    assert rest.splitlines()[0].split() == ["[3.0,", "4.0]", "2.0"]
    # the session's profile holds both cells' calls; lines only from the magic's cell
    assert rest.splitlines()[1] == "session: 1 1 ['<cell-2>']"
