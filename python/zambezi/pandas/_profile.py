"""What the accelerator records: per function, the calls zambezi served
(fast), the calls pandas served (slow), their time, and why each fallback
happened; and, while line recording is on, the same per line of the user's
code that made each call (file:line, found by walking out of the
accelerator's own frames).  ``python -m zambezi.pandas --profile`` prints
it, ``--profile-json=FILE`` writes it (top-level ``fast_calls``,
``slow_calls``, ``functions``, ``lines``), and the IPython cell magic
``%%zambezi.pandas.profile`` prints it for one cell.

Line recording costs a frame walk per call, so it is on only while a
profile was asked for (those entry points, or ZAMBEZI_PANDAS_PROFILE_JSON);
the per-function counts are always kept.
"""

import contextlib
import json
import linecache
import os
import sys
import threading
from collections import Counter

_lock = threading.Lock()
# frames in these files are the accelerator's own: the user's line is the
# first frame outside them
_OWN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")


class _Stats:
    __slots__ = ("fast", "fast_s", "slow", "slow_s", "reasons")

    def __init__(self):
        self.fast = self.slow = 0
        self.fast_s = self.slow_s = 0.0
        self.reasons = Counter()

    def add(self, other):
        self.fast += other.fast
        self.slow += other.slow
        self.fast_s += other.fast_s
        self.slow_s += other.slow_s
        self.reasons.update(other.reasons)

    def as_dict(self):
        return {"fast_calls": self.fast, "fast_seconds": round(self.fast_s, 6),
                "slow_calls": self.slow, "slow_seconds": round(self.slow_s, 6),
                "fallback_reasons": dict(self.reasons)}


def _caller_line():
    """(file, line) of the first frame outside zambezi/pandas, or None."""
    f = sys._getframe(1)
    own = _OWN_DIR
    while f is not None and f.f_code.co_filename.startswith(own):
        f = f.f_back
    if f is None:
        return None
    return f.f_code.co_filename, f.f_lineno


def _show_path(path):
    try:
        rel = os.path.relpath(path)
    except ValueError:   # another drive (Windows)
        return path
    return path if rel.startswith("..") else rel


class _Recorder:
    def __init__(self):
        self.by_name = {}
        self.by_line = {}    # (file, line) -> {function name: _Stats}
        self.lines = False   # record lines too (see the module docstring)

    def clear(self):
        with _lock:
            self.by_name.clear()
            self.by_line.clear()

    def _stats(self, name):
        with _lock:
            st = self.by_name.get(name)
            if st is None:
                st = self.by_name[name] = _Stats()
            return st

    def _line_stats(self, name):
        where = _caller_line()
        if where is None:
            return None
        with _lock:
            funcs = self.by_line.get(where)
            if funcs is None:
                funcs = self.by_line[where] = {}
            st = funcs.get(name)
            if st is None:
                st = funcs[name] = _Stats()
            return st

    def fast(self, name, seconds):
        st = self.by_name.get(name) or self._stats(name)
        st.fast += 1
        st.fast_s += seconds
        if self.lines:
            st = self._line_stats(name)
            if st is not None:
                st.fast += 1
                st.fast_s += seconds

    def slow(self, name, seconds, reason=None):
        # no lock on this path (it runs for every call pandas serves): with
        # threads a count may be lost, never corrupted
        st = self.by_name.get(name) or self._stats(name)
        st.slow += 1
        st.slow_s += seconds
        if reason:
            st.reasons[reason] += 1
        if self.lines:
            st = self._line_stats(name)
            if st is not None:
                st.slow += 1
                st.slow_s += seconds
                if reason:
                    st.reasons[reason] += 1

    @contextlib.contextmanager
    def scope(self):
        """Record into a fresh recorder (lines on) for the block; yields it.
        On exit its counts are added to this one's, so the whole-process
        profile stays complete.  (The IPython cell magic uses it.)"""
        part = _Recorder()
        with _lock:
            saved = self.by_name, self.by_line, self.lines
            self.by_name, self.by_line, self.lines = part.by_name, part.by_line, True
        try:
            yield part
        finally:
            with _lock:
                self.by_name, self.by_line, self.lines = saved
                for name, st in part.by_name.items():
                    mine = self.by_name.get(name)
                    if mine is None:
                        mine = self.by_name[name] = _Stats()
                    mine.add(st)
                for where, funcs in part.by_line.items():
                    mine = self.by_line.setdefault(where, {})
                    for name, st in funcs.items():
                        if name not in mine:
                            mine[name] = _Stats()
                        mine[name].add(st)

    def as_dict(self):
        with _lock:
            funcs = {name: st.as_dict() for name, st in sorted(self.by_name.items())}
            lines = []
            for (path, lineno), by_func in sorted(self.by_line.items()):
                code = linecache.getline(path, lineno).strip()
                for name, st in sorted(by_func.items()):
                    lines.append(dict({"file": path, "line": lineno, "code": code,
                                       "function": name}, **st.as_dict()))
        return {"fast_calls": sum(f["fast_calls"] for f in funcs.values()),
                "slow_calls": sum(f["slow_calls"] for f in funcs.values()),
                "functions": funcs, "lines": lines}

    def write_json(self, path):
        with open(path, "w") as f:
            json.dump(self.as_dict(), f, indent=1)

    def report(self):
        d = self.as_dict()
        rows = [(name, f) for name, f in d["functions"].items()]
        width = max([len(n) for n, _ in rows] + [8])
        out = ["zambezi.pandas profile: "
               f"{d['fast_calls']} calls served by zambezi, {d['slow_calls']} by pandas", "",
               f"{'function':<{width}}  {'zambezi':>7} {'time (s)':>9}  {'pandas':>7} {'time (s)':>9}",
               "-" * (width + 40)]
        for name, f in rows:
            out.append(f"{name:<{width}}  {f['fast_calls']:>7} {f['fast_seconds']:>9.4f}  "
                       f"{f['slow_calls']:>7} {f['slow_seconds']:>9.4f}")
        falls = [(n, r, c) for n, f in rows for r, c in f["fallback_reasons"].items()]
        if falls:
            out += ["", "fallbacks to pandas (function: reason x count):"]
            for n, r, c in falls:
                out.append(f"  {n}: {r} x {c}")
        if d["lines"]:
            out += self._line_report(d["lines"])
        return "\n".join(out) + "\n"

    @staticmethod
    def _line_report(lines):
        # one block per line of user code: "file:line  code", then a row per
        # function called there, with its fallback reasons
        width = max(len(x["function"]) for x in lines)
        out = ["", "per line (the user's code that made each call):",
               f"  {'function':<{width}}  {'zambezi':>7} {'time (s)':>9}  {'pandas':>7} "
               f"{'time (s)':>9}  fallback"]
        last = None
        for x in lines:
            where = (x["file"], x["line"])
            if where != last:
                code = x["code"]
                if len(code) > 60:
                    code = code[:57] + "..."
                out.append(f"{_show_path(x['file'])}:{x['line']}" + (f"  {code}" if code else ""))
                last = where
            reasons = "; ".join(f"{r} x {c}" for r, c in x["fallback_reasons"].items())
            out.append(f"  {x['function']:<{width}}  {x['fast_calls']:>7} {x['fast_seconds']:>9.4f}  "
                       f"{x['slow_calls']:>7} {x['slow_seconds']:>9.4f}  {reasons}".rstrip())
        return out


recorder = _Recorder()
