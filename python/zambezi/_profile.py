"""zambezi.profile(): which engine operations ran, where, and for how long.

The recording happens in C, at the one entry point every operation passes
through: each operation run while a profile is active adds one record with
its name, the device it ran on, the device its data lives on, the rows it
was given, its wall time (GPU work waited for), how deeply it was nested
inside other operations, and -- when the GPU backend lacks the operation
and the CPU ran it instead -- that fallback and its reason.

A profile sees the operations of the thread that entered it; pass
``all_threads=True`` to see every thread's.  Profiles nest: an operation is
recorded in every active profile that sees it.
"""

import contextlib
import threading
import time
from typing import NamedTuple

from zambezi import _core

_ACTIVE = []  # the profiles recording now (for python_calls)


class ProfileRecord(NamedTuple):
    """One operation, as a profile recorded it (see :func:`profile`).

    Examples
    --------
    >>> with zb.profile() as p:
    ...     total = zb.Series([1, 2, 3]).sum()
    >>> r = p.records[0]
    >>> r.op, r.device, r.rows, r.fallback, r.seconds > 0
    ('sum', 'cpu', 3, False, True)
    """

    op: str  # "add", "filter", "groupby", "to_device", ...
    device: str  # where it ran: "cpu", "cuda:N", or "python" (a Python function per row)
    data_device: str  # where its input data lives
    rows: int  # rows of its input
    start: float  # seconds since the profile began
    seconds: float  # wall time, GPU work included
    thread: int  # 1, 2, ...: the calling thread
    depth: int  # 0: called by you; n: inside n other operations
    fallback: bool  # ran on the CPU because the GPU backend lacks it
    reason: str  # why it fell back ("" if it did not); for "python": what was called


def _ms(seconds):
    return f"{seconds * 1e3:.3f} ms"


class Profile:
    """What ran where: use as ``with zb.profile() as p:``, then read
    ``p.records`` (a list of :class:`ProfileRecord`), ``print(p)`` for a
    table, ``p.to_dicts()`` or ``p.to_pandas()``.

    Examples
    --------
    >>> with zb.profile() as p:
    ...     s = zb.Series([3, 1, 2])
    ...     _ = (s * 2).sum()
    >>> [r.op for r in p.records]
    ['mul', 'sum']
    """

    __slots__ = ("all_threads", "records", "dropped", "_handle", "_python", "_t0", "_thread")

    def __init__(self, all_threads=False):
        self.all_threads = bool(all_threads)
        self.records = []
        self.dropped = 0  # records lost for want of memory
        self._handle = None
        self._python = []  # records of Python functions called per row (python_calls)

    def __enter__(self):
        if self._handle is not None:
            raise RuntimeError("this profile is already recording; make a new zb.profile()")
        self.records = []
        self.dropped = 0
        self._python = []
        self._t0 = time.perf_counter()
        self._thread = threading.get_ident()
        self._handle = _core.profile_start(self.all_threads)
        _ACTIVE.append(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        handle, self._handle = self._handle, None
        if self in _ACTIVE:
            _ACTIVE.remove(self)
        if handle is not None:
            recs, self.dropped = _core.profile_stop(handle)
            self.records = [ProfileRecord._make(r) for r in recs]
            if self._python:
                self.records = sorted(self.records + self._python, key=lambda r: r.start)
        return False

    # -- summaries -------------------------------------------------------
    @property
    def fallbacks(self):
        """The records of operations that fell back to the CPU (always
        none for data on the CPU).

        Examples
        --------
        >>> with zb.profile() as p:
        ...     _ = zb.Series([1.0, 2.0]).sum()
        >>> p.fallbacks
        []
        """
        return [r for r in self.records if r.fallback]

    @property
    def total_seconds(self):
        """Wall time of the operations you called (nested ones are inside).

        Examples
        --------
        >>> with zb.profile() as p:
        ...     _ = zb.Series(range(1000)).sum()
        >>> p.total_seconds > 0
        True
        """
        return sum(r.seconds for r in self.records if r.depth == 0)

    def to_dicts(self):
        """The records as a list of dicts.

        Examples
        --------
        >>> with zb.profile() as p:
        ...     _ = zb.Series([1, 2]).max()
        >>> {k: p.to_dicts()[0][k] for k in ("op", "device", "rows")}
        {'op': 'max', 'device': 'cpu', 'rows': 2}
        """
        return [r._asdict() for r in self.records]

    def to_pandas(self):
        """The records as a pandas DataFrame, one row per operation.

        Examples
        --------
        >>> with zb.profile() as p:
        ...     _ = zb.Series([1, 2]).sum()
        >>> p.to_pandas()[["op", "device", "rows"]]
            op device  rows
        0  sum    cpu     2
        """
        import pandas as pd

        return pd.DataFrame(self.records, columns=list(ProfileRecord._fields))

    def report(self):
        """A readable table of the records, nested operations indented
        (``str(p)`` and ``print(p)`` give the same).

        Examples
        --------
        >>> with zb.profile() as p:
        ...     _ = zb.Series([1, 2, 3]).sum()
        >>> print(p.report())  # doctest: +ELLIPSIS
        operation  device  rows      time  note
        sum        cpu        3  ... ms
        1 operations (1 called directly) in ... ms; 0 fell back to the CPU
        """
        threads = len({r.thread for r in self.records}) > 1
        head = ["operation", "device", "rows", "time", "note"]
        if threads:
            head.insert(1, "thread")
        rows = []
        for r in self.records:
            note = f"fell back from {r.data_device}: {r.reason}" if r.fallback else \
                (r.reason if r.device == "python" else "")
            row = ["  " * r.depth + r.op, r.device, f"{r.rows:,}", _ms(r.seconds), note]
            if threads:
                row.insert(1, str(r.thread))
            rows.append(row)
        widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(head)]
        right = {head.index("rows"), head.index("time")}

        def line(cells):
            out = [c.rjust(w) if i in right else c.ljust(w)
                   for i, (c, w) in enumerate(zip(cells, widths))]
            return "  ".join(out).rstrip()

        lines = [line(head)] + [line(row) for row in rows]
        top = sum(1 for r in self.records if r.depth == 0)
        summary = (f"{len(self.records)} operations ({top} called directly) in "
                   f"{_ms(self.total_seconds)}; {len(self.fallbacks)} fell back to the CPU")
        if self.dropped:
            summary += f"; {self.dropped} records lost (out of memory)"
        return "\n".join(lines + [summary])

    def __str__(self):
        return self.report()

    def __repr__(self):
        state = "recording" if self._handle is not None else f"{len(self.records)} operations"
        return f"<zambezi.Profile {state}>"


@contextlib.contextmanager
def python_calls(op, rows, what):
    """Record, in the active profiles, a stretch of Python function calls
    (one per value, row or group: ``Series.map(func)``, ``apply`` ...):
    device "python", the calls in rows, and what (the note shown), so that
    a profile says where a slow Python function ran."""
    if not _ACTIVE:
        yield
        return
    t = time.perf_counter()
    try:
        yield
    finally:
        end = time.perf_counter()
        me = threading.get_ident()
        for p in list(_ACTIVE):
            if p.all_threads or p._thread == me:
                p._python.append(ProfileRecord(op, "python", "cpu", int(rows), t - p._t0,
                                               end - t, 1, 0, False, what))


def note(op, device, data_device, rows, seconds, reason, fallback=False):
    """Add one record, made in Python, to the active profiles of this
    thread (an I/O step whose story the engine's records do not tell: the
    row groups a Parquet read skipped, a read decoded on the CPU for the
    GPU)."""
    if not _ACTIVE:
        return
    end = time.perf_counter()
    me = threading.get_ident()
    for p in list(_ACTIVE):
        if p.all_threads or p._thread == me:
            p._python.append(ProfileRecord(op, device, data_device, int(rows),
                                           end - seconds - p._t0, seconds, 1, 0, fallback,
                                           reason))


def profile(all_threads=False):
    """Record what the engine runs inside the ``with`` block: each
    operation's name, the device it ran on, its rows, its time and any
    fallback to the CPU with the reason (see :class:`Profile`).

    Only this thread's operations are recorded unless ``all_threads=True``.

    Examples
    --------
    >>> df = zb.DataFrame({"fare": [5.0, 12.5, 30.0]})
    >>> with zb.profile() as p:
    ...     total = df[df["fare"] > 10]["fare"].sum()
    >>> total
    42.5
    >>> [(r.op, r.device) for r in p.records if r.depth == 0]
    [('gt', 'cpu'), ('table_filter', 'cpu'), ('sum', 'cpu')]
    """
    return Profile(all_threads)


def coverage(device="cuda"):
    """What a backend runs natively, read from its support table: a list of
    dicts ``{"op", "variants", "types"}``, where ``variants`` (the
    sub-operations: ``add``, ``sum``, a cast's target type...) and ``types``
    (the types of the operation's subject) are lists of names, or ``"*"``
    for all of them.  An operation on data in that device's memory that no
    row covers runs on the CPU, and profiles record it as a fallback.

    ``device`` is ``"cuda"`` or ``"cpu"`` (the CPU runs everything).  A build
    without the CUDA backend raises for ``"cuda"``.

    Examples
    --------
    >>> rows = zb.coverage("cpu")
    >>> {"op": "groupby", "variants": "*", "types": "*"} in rows
    True
    """
    kinds = {"cpu": 0, "cuda": 1}
    if device not in kinds:
        raise ValueError(f"coverage: device must be 'cpu' or 'cuda', not {device!r}")
    out = []
    for op, variants, types in _core.coverage(kinds[device]):
        out.append({"op": op,
                    "variants": variants if variants in ("*", "") else variants.split(","),
                    "types": types if types == "*" else types.split(",")})
    return out
