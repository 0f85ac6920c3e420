"""What the accelerator records: per function, the calls zambezi served
(fast), the calls pandas served (slow), their time, and why each fallback
happened.  ``python -m zambezi.pandas --profile`` prints it, and
``--profile-json=FILE`` writes it (top-level ``fast_calls``/``slow_calls``).
"""

import json
import threading
from collections import Counter

_lock = threading.Lock()


class _Stats:
    __slots__ = ("fast", "fast_s", "slow", "slow_s", "reasons")

    def __init__(self):
        self.fast = self.slow = 0
        self.fast_s = self.slow_s = 0.0
        self.reasons = Counter()


class _Recorder:
    def __init__(self):
        self.by_name = {}

    def clear(self):
        with _lock:
            self.by_name.clear()

    def _stats(self, name):
        with _lock:
            st = self.by_name.get(name)
            if st is None:
                st = self.by_name[name] = _Stats()
            return st

    def fast(self, name, seconds):
        st = self.by_name.get(name) or self._stats(name)
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

    def as_dict(self):
        with _lock:
            items = sorted(self.by_name.items())
            funcs = {
                name: {"fast_calls": st.fast, "fast_seconds": round(st.fast_s, 6),
                       "slow_calls": st.slow, "slow_seconds": round(st.slow_s, 6),
                       "fallback_reasons": dict(st.reasons)}
                for name, st in items}
        return {"fast_calls": sum(f["fast_calls"] for f in funcs.values()),
                "slow_calls": sum(f["slow_calls"] for f in funcs.values()),
                "functions": funcs}

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
        return "\n".join(out) + "\n"


recorder = _Recorder()
