"""``engine="numba"``: user functions compiled by Numba and run over every
core with the GIL released.

The scalar (or window, or group) function is compiled with ``numba.njit``;
a ``prange`` loop (``parallel=True, nogil=True``) calls it over a numpy
view of the column (zero-copy from the engine's buffer for float and
null-free columns), and the result becomes one engine column.  Compiled
loops are cached per (function, kind, options), as pandas caches its
numba kernels; Numba itself caches each compiled type signature.

Values as pandas passes them: float columns as float64 / float32 with NaN
for nulls; an integer or bool column with nulls as float64 with NaN (as
pandas holds such a column); without nulls, as its own dtype.  ``map`` /
``apply`` read a number column in place and write the result (numbers,
or bools as a bitmap) and its validity straight into engine memory.  With
``na_action="ignore"`` the missing rows stay missing: an integer result is
then float64 with NaN there, as pandas gives; a bool result is bool with
nulls (pandas: an object column of bools and NaN).  Strings,
categoricals and times are not numeric for Numba: DTypeError.  A float
result is null where it is NaN (pandas: NaN, its missing value).

When a column without nulls lives on a GPU and Numba's CUDA target is
available, ``Series.map`` / ``apply`` compile a CUDA device function and
run one thread per row over the column's device memory (no copy to the
host; the result comes back to the column's device).  That path is
written for machines with a GPU and is not exercised by the CPU test
suite.

numba is an optional dependency: ``pip install "zambezi[numba]"``.
"""

import numpy as np

from zambezi import _core
from zambezi._convert import null_mask, values_numpy
from zambezi._dtypes import NUMERIC as _NUMERIC
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

_CACHE = {}


def numba():
    """The numba module, or ImportError naming the extra that installs it."""
    try:
        import numba as nb
    except ImportError:
        raise ImportError('engine="numba" needs numba, an optional dependency of zambezi: '
                          'pip install "zambezi[numba]"') from None
    return nb


def check_engine(engine, engine_kwargs, what):
    """True for engine="numba" (numba importable), False for the Python /
    engine path (None, "python", "cython"); anything else raises."""
    if engine is None or engine in ("python", "cython"):
        if engine_kwargs is not None:
            raise InvalidValueError(f"{what}: engine_kwargs need engine='numba'")
        return False
    if engine != "numba":
        raise InvalidValueError(f"{what}: engine must be None, 'python' or 'numba', not "
                                f"{engine!r}")
    numba()
    if engine_kwargs is not None:
        if not isinstance(engine_kwargs, dict):
            raise DTypeError(f"{what}: engine_kwargs must be a dict")
        bad = set(engine_kwargs) - {"nopython", "nogil", "parallel", "fastmath"}
        if bad:
            raise InvalidValueError(f"{what}: engine_kwargs takes nopython, nogil, parallel "
                                    f"and fastmath, not {sorted(bad)}")
        if engine_kwargs.get("nopython", True) is not True:
            raise InvalidValueError(f"{what}: engine='numba' compiles in nopython mode only")
    return True


def _opts(engine_kwargs):
    kw = dict(engine_kwargs or {})
    return bool(kw.get("parallel", True)), bool(kw.get("fastmath", False))


def _host(col):
    return col if col.device == "cpu" else col.to_device("cpu")


def column_values(col, what):
    """(numpy values as pandas passes them to a numba function, null mask
    or None) of an engine column."""
    if col.dtype not in _NUMERIC:
        raise DTypeError(f"{what}: engine='numba' takes numeric or bool values, not "
                         f"{col.dtype}")
    col = _host(col)
    arr = values_numpy(col)
    m = null_mask(col)
    if m is not None:
        if arr.dtype.kind == "f":
            arr = np.where(m, np.nan, arr).astype(arr.dtype, copy=False)
        else:
            arr = np.where(m, np.nan, arr.astype(np.float64))
    return arr, m


def result_column(out, mask=None):
    """An engine column from a kernel's result (a float NaN is null:
    column_from_buffer makes it so, in its parallel copy)."""
    out = np.ascontiguousarray(out)
    if mask is not None and not mask.any():
        mask = None
    return _core.column_from_buffer(out, mask=mask)


def _jit(func, what):
    nb = numba()
    if isinstance(func, nb.core.registry.CPUDispatcher):
        return func
    try:
        return nb.njit(nogil=True)(func)
    except Exception as e:
        raise DTypeError(f"{what}: numba cannot compile the function ({e})") from None


def _compile_error(what, e, *dispatchers):
    """The DTypeError for a function numba could not compile.  Numba keeps
    a failed compilation's exception in its dispatcher (with the frames,
    and through them the user's data): those are dropped here."""
    for d in dispatchers:
        try:
            d._compiler._failed_cache.clear()
        except AttributeError:
            pass
    e.__traceback__ = None
    return DTypeError(f"{what}: numba could not compile the function for these values "
                      f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else e})")


def _kernel(func, kind, engine_kwargs, make):
    """The compiled loop of func for kind, made once by make(jitted func,
    prange, parallel, fastmath) and cached.  The jitted func itself is
    cached too: the loops of one func share its compiled overloads."""
    parallel, fastmath = _opts(engine_kwargs)
    key = (func, kind, _kw_key(engine_kwargs))
    k = _CACHE.get(key)
    if k is None:
        nb = numba()
        jf = _jitted(func, kind, engine_kwargs)
        k = make(nb, jf, parallel, fastmath)
        _CACHE[key] = k
    return k


def _kw_key(engine_kwargs):
    """engine_kwargs as part of a cache key: other engine_kwargs compile
    again, as pandas does (Numba reads a closure's values when it compiles,
    so a user who changes them passes other engine_kwargs to see them)."""
    return tuple(sorted(dict(engine_kwargs or {}).items()))


def _jitted(func, what, engine_kwargs):
    key = (func, "jit", _kw_key(engine_kwargs))
    jf = _CACHE.get(key)
    if jf is None:
        jf = _CACHE[key] = _jit(func, what)
    return jf


_CONV = []


def _converters(nb):
    """(identity, to float64): how the loops hand a value to the function
    (an integer column with nulls goes as float64, as pandas holds it)."""
    if not _CONV:
        @nb.njit(inline="always")
        def same(x):
            return x

        @nb.njit(inline="always")
        def as_float(x):
            return np.float64(x)
        _CONV.extend([same, as_float])
    return _CONV


# --------------------------------------------------------------------------
# element-wise: Series.map / Series.apply
# --------------------------------------------------------------------------

def _make_map(nb, jf, parallel, fastmath):
    @nb.njit(parallel=parallel, nogil=True, fastmath=fastmath)
    def kernel(values, out):
        for i in nb.prange(len(values)):
            out[i] = jf(values[i])
    return jf, kernel


def _return_dtype(nb, jf, argtypes, what):
    """numpy dtype of jf's result for these numba argument types."""
    try:
        jf.compile(argtypes)
        rt = jf.overloads[tuple(argtypes)].signature.return_type
        return np.dtype(nb.np.numpy_support.as_dtype(rt))
    except Exception as e:
        raise _compile_error(what, e, jf) from None


def _make_map_valid(nb, jf, parallel, fastmath, to_float=False):
    """The map loops over the column's own memory, eight rows (one validity
    byte) per step, writing the result and its validity bitmap in the same
    pass (a NaN result is null).  ``masked`` reads the validity bitmap as
    the engine holds it (bit ``off + i`` of ``bits`` for row i; float
    values only): a null row gives jf(NaN), as pandas passes NaN, or is
    skipped with ``skip`` (na_action="ignore": it stays null).  ``plain``
    is for columns without nulls (jf is never called on NaN there, so an
    integer function need not compile for floats).  The loops are compiled
    without fastmath whatever engine_kwargs say: it would let the NaN test
    ``r == r`` fold to True (the user's function is compiled on its own
    and is not affected either way).  to_float: the values go to jf as
    float64 (an integer column with nulls, as pandas holds it)."""
    conv = _converters(nb)[1 if to_float else 0]

    @nb.njit(parallel=parallel, nogil=True)
    def plain(values, out, valid):
        n = len(values)
        for b in nb.prange((n + 7) // 8):
            byte = 0
            for q in range(min(8, n - 8 * b)):
                i = 8 * b + q
                r = jf(conv(values[i]))
                out[i] = r
                if r == r:
                    byte |= 1 << q
            valid[b] = byte

    @nb.njit(parallel=parallel, nogil=True)
    def masked(values, bits, off, skip, out, valid):
        n = len(values)
        for b in nb.prange((n + 7) // 8):
            byte = 0
            for q in range(min(8, n - 8 * b)):
                i = 8 * b + q
                k = off + i
                if (bits[k >> 3] >> (k & 7)) & 1:
                    r = jf(conv(values[i]))
                elif skip:
                    continue
                else:
                    r = jf(np.nan)
                out[i] = r
                if r == r:
                    byte |= 1 << q
            valid[b] = byte
    return jf, (plain, masked)


def _make_map_bits(nb, jf, parallel, fastmath, to_float=False):
    """As _make_map_valid for a function returning bool: the results are
    written as the engine holds a bool column, a bitmap (eight rows a
    byte), with the validity bitmap (``masked``: a null row skipped with
    ``skip`` stays null, else it gets jf(NaN)) in the same pass."""
    conv = _converters(nb)[1 if to_float else 0]

    @nb.njit(parallel=parallel, nogil=True)
    def plain(values, out):
        n = len(values)
        for b in nb.prange((n + 7) // 8):
            byte = 0
            for q in range(min(8, n - 8 * b)):
                if jf(conv(values[8 * b + q])):
                    byte |= 1 << q
            out[b] = byte

    @nb.njit(parallel=parallel, nogil=True)
    def masked(values, bits, off, skip, out, valid):
        n = len(values)
        for b in nb.prange((n + 7) // 8):
            byte = 0
            vbyte = 0
            for q in range(min(8, n - 8 * b)):
                i = 8 * b + q
                k = off + i
                if (bits[k >> 3] >> (k & 7)) & 1:
                    r = jf(conv(values[i]))
                elif skip:
                    continue
                else:
                    r = jf(np.nan)
                if r:
                    byte |= 1 << q
                vbyte |= 1 << q
            out[b] = byte
            valid[b] = vbyte
    return jf, (plain, masked)


def _map_direct(col, func, na_action, engine_kwargs, what):
    """map_column without copies, for a host column of numbers (any nulls;
    an integer column with nulls goes to the function as float64, as
    pandas holds it), whose result is a number or a bool: Numba reads the
    engine's buffers and writes a new engine buffer (not zero-filled; a
    bitmap for bool) and its validity bitmap in one pass.  None where this
    path does not apply."""
    nb = numba()
    arr = values_numpy(col)
    if arr.dtype.kind not in "fiu":
        return None
    to_float = arr.dtype.kind != "f" and col.null_count > 0
    jf = _jitted(func, what, engine_kwargs)
    rdt = _return_dtype(nb, jf, (nb.float64 if to_float else nb.typeof(arr).dtype,), what)
    bits_out = rdt.kind == "b"
    if not bits_out and (rdt.kind not in "fiu" or rdt.itemsize not in (1, 2, 4, 8) or
                         (rdt.kind == "f" and rdt.itemsize < 4)):
        return None
    if rdt.kind in "iu" and col.null_count and na_action == "ignore":
        # the rows left missing make pandas' result float64 with NaN
        rdt = np.dtype(np.float64)
    make = _make_map_bits if bits_out else _make_map_valid
    _, (plain, masked) = _kernel(func, ("map-direct", bits_out, to_float), engine_kwargs,
                                 lambda nb, jf, p, f: make(nb, jf, p, f, to_float))
    n = len(arr)
    nbytes = (n + 7) // 8
    view = _core.udf_buffer("uint8", nbytes) if bits_out else _core.udf_buffer(rdt.name, n)
    vview = _core.udf_buffer("uint8", nbytes) if col.null_count or not bits_out else None
    out = np.frombuffer(view, dtype=np.uint8 if bits_out else rdt)
    valid = None if vview is None else np.frombuffer(vview, dtype=np.uint8)
    kernel = masked if col.null_count else plain
    try:
        if col.null_count:
            bits, off = _core.udf_validity(col)
            masked(arr, np.frombuffer(bits, dtype=np.uint8), off, na_action == "ignore", out,
                   valid)
        elif bits_out:
            plain(arr, out)
        else:
            plain(arr, out, valid)
    except Exception as e:
        raise _compile_error(what, e, jf, kernel) from None
    del out, valid  # the column's memory is final from here on
    if bits_out:
        return _core.udf_column(view, "bool", valid=vview, length=n)
    return _core.udf_column(view, rdt.name, valid=vview)


def map_column(col, func, na_action, engine_kwargs, what):
    """func applied to each value of col with Numba: an engine column."""
    if col.device != "cpu":
        out = _map_cuda(col, func, what)
        if out is not None:
            return out
    if col.dtype in _NUMERIC and col.dtype != "bool" and col.device == "cpu":
        out = _map_direct(col, func, na_action, engine_kwargs, what)
        if out is not None:
            return out
    arr, m = column_values(col, what)
    jf, kernel = _kernel(func, "map", engine_kwargs, _make_map)
    nb = numba()
    rdt = _return_dtype(nb, jf, (nb.typeof(arr).dtype,), what)
    out = np.empty(len(arr), dtype=rdt)
    try:
        kernel(arr, out)
    except Exception as e:
        raise _compile_error(what, e, jf, kernel) from None
    keep = m if na_action == "ignore" else None
    return result_column(out, keep)


def _map_cuda(col, func, what):
    """func over a GPU column with Numba's CUDA target, one thread per row;
    None when the CUDA target is unavailable (the CPU runs it then).
    Null rows give null."""
    nb = numba()
    try:
        from numba import cuda
        if not cuda.is_available() or col.dtype not in _NUMERIC or col.dtype == "bool" or \
                col.null_count:  # the CUDA Array Interface export has no mask
            return None
    except Exception:
        return None
    key = (func, "map-cuda")
    k = _CACHE.get(key)
    if k is None:
        dev = cuda.jit(device=True)(func)

        @cuda.jit
        def kernel(values, out):
            i = cuda.grid(1)
            if i < values.shape[0]:
                out[i] = dev(values[i])
        k = _CACHE[key] = (dev, kernel)
    dev, kernel = k
    values = cuda.as_cuda_array(_DeviceView(col))  # zero-copy: the column's memory
    rt = _return_dtype(nb, nb.njit(func), (nb.from_dtype(np.dtype(values.dtype)),), what)
    out = cuda.device_array(values.shape[0], dtype=rt)
    threads = 256
    kernel[(values.shape[0] + threads - 1) // threads, threads](values, out)
    return result_column(out.copy_to_host()).to_device(col.device)


class _DeviceView:
    """A GPU column as the CUDA Array Interface presents it to Numba."""

    __slots__ = ("__cuda_array_interface__", "_col")

    def __init__(self, col):
        self._col = col  # keeps the memory alive
        self.__cuda_array_interface__ = _core.column_cuda_array_interface(col)


# --------------------------------------------------------------------------
# DataFrame.apply(raw=True)
# --------------------------------------------------------------------------

def _make_rows(nb, jf, parallel, fastmath):
    @nb.njit(parallel=parallel, nogil=True, fastmath=fastmath)
    def kernel(values, out):
        for i in nb.prange(values.shape[0]):
            out[i] = jf(values[i])
    return jf, kernel


def frame_apply(frame, func, axis, engine_kwargs, what="apply"):
    """func(1-D row or column array) per row (axis=1) or column (axis=0):
    one value each, as a float / int / bool Series."""
    t = frame._table
    cols = [column_values(t.column(i), f"{what}: column {nm!r}")[0]
            for i, nm in enumerate(t.names)]
    if not cols:
        raise InvalidValueError(f"{what}: engine='numba' needs at least one column")
    dt = np.result_type(*[c.dtype for c in cols])
    if axis == 1:
        values = np.empty((len(frame), len(cols)), dtype=dt)  # one copy: rows
        for j, c in enumerate(cols):
            values[:, j] = c
    else:
        values = np.empty((len(cols), len(frame)), dtype=dt)
        for j, c in enumerate(cols):
            values[j] = c
    jf, kernel = _kernel(func, "rows", engine_kwargs, _make_rows)
    nb = numba()
    rdt = _return_dtype(nb, jf, (nb.typeof(values[0]) if len(values) else
                                 nb.types.Array(nb.from_dtype(dt), 1, "C"),), what)
    out = np.empty(values.shape[0], dtype=rdt)
    try:
        kernel(values, out)
    except Exception as e:
        raise _compile_error(what, e, jf, kernel) from None
    return result_column(out)


# --------------------------------------------------------------------------
# group-by agg / transform: func(values, index) per group
# --------------------------------------------------------------------------

def _make_group_agg(nb, jf, parallel, fastmath):
    @nb.njit(parallel=parallel, nogil=True, fastmath=fastmath)
    def kernel(values, index, starts, out):
        for g in nb.prange(len(starts) - 1):
            s, e = starts[g], starts[g + 1]
            out[g] = jf(values[s:e], index[s:e])
    return jf, kernel


def _make_group_transform(nb, jf, parallel, fastmath):
    @nb.njit(parallel=parallel, nogil=True, fastmath=fastmath)
    def kernel(values, index, starts, out):
        for g in nb.prange(len(starts) - 1):
            s, e = starts[g], starts[g + 1]
            out[s:e] = jf(values[s:e], index[s:e])
    return jf, kernel


def validate_group_udf(func, what):
    """pandas' rule: the function's first two arguments are values, index."""
    import inspect

    try:
        params = list(inspect.signature(func.py_func if hasattr(func, "py_func") else func)
                      .parameters)
    except (TypeError, ValueError):
        return
    if params[:2] != ["values", "index"]:
        raise InvalidValueError(f"{what}: with engine='numba' the function's first two "
                                f"arguments must be ['values', 'index'], not {params[:2]}")


def index_values(obj, what):
    """The numpy values of obj's (one-level, numeric) index."""
    idx = obj._index
    if idx.nlevels != 1:
        raise UnsupportedError(f"{what}: engine='numba' needs a one-level index")
    arr = np.asarray(idx.to_numpy())
    if arr.dtype.kind not in "biuf":
        if arr.dtype.kind in "mM":
            return arr.view(np.int64)
        raise DTypeError(f"{what}: engine='numba' passes the index to the function: it must "
                         f"be numeric, not {arr.dtype}")
    return arr


def group_run(values, index, order, starts, func, transform, engine_kwargs, what):
    """func over each group's values (rows order[starts[g]:starts[g+1]]):
    float64 per group (agg) or per row in group order (transform), as
    pandas' numba group-by gives."""
    v = np.ascontiguousarray(values[order])
    ix = np.ascontiguousarray(index[order])
    make = _make_group_transform if transform else _make_group_agg
    jf, kernel = _kernel(func, "group-transform" if transform else "group-agg",
                         engine_kwargs, make)
    out = np.empty(len(order) if transform else len(starts) - 1, dtype=np.float64)
    try:
        kernel(v, ix, starts, out)
    except Exception as e:
        raise _compile_error(what, e, jf, kernel) from None
    return out


# --------------------------------------------------------------------------
# rolling(...).apply(raw=True)
# --------------------------------------------------------------------------

def _make_window(nb, jf, parallel, fastmath):
    @nb.njit(parallel=parallel, nogil=True, fastmath=fastmath)
    def kernel(values, starts, ends, minp, out):
        for i in nb.prange(len(starts)):
            s, e = starts[i], ends[i]
            cnt = 0
            for j in range(s, e):
                if not np.isnan(values[j]):
                    cnt += 1
            if cnt >= minp and e > s:
                out[i] = jf(values[s:e])
            else:
                out[i] = np.nan
    return jf, kernel


def window_run(values, starts, ends, minp, func, engine_kwargs, what):
    """func over each window values[starts[i]:ends[i]] (float64): NaN where
    the window has fewer than minp non-missing values."""
    jf, kernel = _kernel(func, "window", engine_kwargs, _make_window)
    out = np.empty(len(starts), dtype=np.float64)
    try:
        kernel(np.ascontiguousarray(values, dtype=np.float64), starts.astype(np.int64),
               ends.astype(np.int64), int(minp), out)
    except Exception as e:
        raise _compile_error(what, e, jf, kernel) from None
    return out
