"""zambezi: dataframes whose engine is C.

Every operation runs in the C engine with the GIL released, on all CPU cores,
or on an NVIDIA GPU when one is present (``df.to("cuda")``).  The Python
layer only shapes arguments; data moves to and from pandas, numpy, pyarrow,
polars and duckdb through the Arrow C interfaces and the buffer protocol.

    import zambezi as zb
    df = zb.DataFrame({"a": [1, 2, None], "b": ["x", "y", "z"]})
    df["a"].sum()          # 3
    zb.from_pandas(pdf).to_pandas()
"""

from zambezi import _core
from zambezi import errors
from zambezi.errors import (
    ColumnNotFoundError,
    DeviceError,
    DTypeError,
    InvalidValueError,
    OutOfMemoryError,
    ZambeziError,
)
from zambezi.frame import DataFrame, from_arrow, from_pandas
from zambezi.series import Series
from zambezi.index import Index, MultiIndex, RangeIndex
from zambezi.io import read_csv, read_parquet, read_pickle
from zambezi.io import read_json
from zambezi.io import read_feather, read_ipc, write_ipc
from zambezi.io import read_table
from zambezi.io import (json_normalize, read_clipboard, read_excel, read_fwf, read_hdf,
                        read_html, read_orc, read_sas, read_spss, read_sql, read_sql_query,
                        read_sql_table, read_stata, read_xml)
from zambezi._concat import concat
from zambezi._merge import merge
from zambezi._merge_asof import merge_asof
from zambezi._merge_ordered import merge_ordered
from zambezi._pivot import crosstab, get_dummies, melt, pivot, pivot_table
from zambezi._cut import cut, qcut
from zambezi._numeric import factorize, to_numeric
from zambezi._resample import Grouper
from zambezi._times import bdate_range, date_range, timedelta_range, to_datetime, to_timedelta
from zambezi._device import get_auto_threshold, set_auto_threshold
from zambezi._profile import Profile, ProfileRecord, coverage, profile
from zambezi._options import get_option, option_context, reset_option, set_option
from zambezi._dtypes import ListDtype
from zambezi._toplevel import (IndexSlice, NamedAgg, isna, isnull, notna, notnull, unique,
                               wide_to_long)

__version__ = _core.build_info()["version"]


def devices():
    """The devices zambezi can use: a list of dicts, the CPU first, then each
    usable GPU (kind, id, name, memory_total, memory_free, cores,
    compute_capability, driver_version, runtime_version).

    ``device`` is the name ``DataFrame.to`` takes ("cpu", "cuda:0" ...);
    memory is in bytes; ``cores`` is the CPU cores this process may use, or
    a GPU's multiprocessors.  ``python -m zambezi doctor`` prints the same
    in words, and says why when there is no GPU.

    A GPU's ``id`` is its CUDA ordinal (``cuda:N`` is CUDA device N); a GPU
    zambezi cannot use (older than the build's architectures, say) is not
    listed but keeps its number, and ``doctor`` names it and why.

    Examples
    --------
    >>> cpu = zb.devices()[0]
    >>> cpu["kind"], cpu["device"]
    ('cpu', 'cpu')
    >>> cpu["cores"] >= 1
    True
    >>> [d["device"] for d in zb.devices()][1:]   # doctest: +SKIP
    ['cuda:0']
    """
    return _core.devices()


def get_num_threads():
    """Threads the engine uses for parallel work: the environment variable
    ``ZAMBEZI_NUM_THREADS`` when set, else the cores this process may use.

    Examples
    --------
    >>> zb.get_num_threads() >= 1
    True
    """
    return _core.get_num_threads()


def set_num_threads(n):
    """Set the threads the engine uses (affects operations started later).

    Examples
    --------
    >>> saved = zb.get_num_threads()
    >>> zb.set_num_threads(1)          # one core: the serial baseline
    >>> zb.get_num_threads()
    1
    >>> zb.Series(range(1000)).sum()   # the same answer on any thread count
    499500
    >>> zb.set_num_threads(saved)
    """
    _core.set_num_threads(n)


def set_memory_limit(limit):
    """Limit the host memory zambezi's engine may hold: an operation whose
    allocations would pass it raises ``OutOfMemoryError`` (a
    ``MemoryError``) naming the bytes asked for, in use and allowed, and
    frees what it made, instead of the process meeting the system's
    out-of-memory killer.  limit: bytes (int), a size ("8GB", "512MB";
    units are powers of 1024), a share of the memory this process may use
    ("80%": of the cgroup limit or physical memory), or None / 0 for no
    limit.  The default is ``ZAMBEZI_MEMORY_LIMIT`` (same forms), else 90%
    of that memory.  Counts the engine's buffers (not numpy arrays or
    Python objects); freed blocks kept for reuse are given back first.

    Examples
    --------
    >>> saved = zb.get_memory_limit()
    >>> zb.set_memory_limit("64MB")
    >>> zb.get_memory_limit()
    67108864
    >>> try:
    ...     zb.Series(range(10_000_000)).sort_values()   # needs more than 64 MB
    ... except MemoryError:
    ...     print("refused")
    refused
    >>> zb.set_memory_limit(saved)
    """
    _core.set_memory_limit(0 if limit is None else limit)


def get_memory_limit():
    """The host memory limit in bytes (0: none); see ``set_memory_limit``.

    Examples
    --------
    >>> zb.get_memory_limit() >= 0
    True
    """
    return _core.get_memory_limit()


def cuda_available():
    """True when at least one usable NVIDIA GPU is present (and this build
    has the CUDA backend).

    Examples
    --------
    >>> df = zb.DataFrame({"a": [1, 2, 3]})
    >>> if zb.cuda_available():
    ...     df = df.to("cuda")       # the sum below then runs on the GPU
    >>> df["a"].sum()
    6
    """
    return _core.cuda_device_count() > 0


def cuda_memory_info(device="cuda"):
    """The CUDA memory pool of a GPU ("cuda" or "cuda:N"), in bytes:
    ``pool_reserved`` (held from the driver), ``pool_used`` (in live
    allocations), ``release_threshold`` (kept cached when freed),
    ``staging_bytes`` (pinned host buffers for copies), ``engine_bytes``
    (zambezi's live device buffers, all GPUs), ``free`` and ``total`` (the
    device now), and ``pool_enabled`` (False when ``ZAMBEZI_CUDA_POOL=0``).
    DeviceError without a GPU.

    Examples
    --------
    >>> if zb.cuda_available():
    ...     info = zb.cuda_memory_info()
    ...     assert info["pool_used"] <= info["pool_reserved"] <= info["total"]
    """
    return _core.cuda_memory_info(device)


def cuda_release_cached_memory(device="cuda"):
    """Give the memory the pool of a GPU ("cuda" or "cuda:N") keeps cached
    (freed by zambezi, not yet returned) back to the driver, for other
    libraries to use.  Live columns are untouched.  DeviceError without a
    GPU.

    Examples
    --------
    >>> if zb.cuda_available():
    ...     zb.cuda_release_cached_memory()
    ...     info = zb.cuda_memory_info()
    """
    _core.cuda_release_cached_memory(device)


__all__ = [
    "DataFrame",
    "Series",
    "ListDtype",
    "Index",
    "RangeIndex",
    "MultiIndex",
    "from_pandas",
    "from_arrow",
    "read_csv",
    "read_json",
    "read_parquet",
    "read_feather",
    "read_ipc",
    "write_ipc",
    "concat",
    "merge_asof",
    "merge_ordered",
    "melt",
    "wide_to_long",
    "pivot",
    "pivot_table",
    "crosstab",
    "get_dummies",
    "cut",
    "qcut",
    "factorize",
    "to_numeric",
    "Grouper",
    "to_datetime",
    "to_timedelta",
    "bdate_range",
    "date_range",
    "timedelta_range",
    "devices",
    "get_num_threads",
    "set_num_threads",
    "cuda_available",
    "cuda_memory_info",
    "cuda_release_cached_memory",
    "get_option",
    "set_option",
    "reset_option",
    "option_context",
    "get_auto_threshold",
    "set_auto_threshold",
    "profile",
    "coverage",
    "Profile",
    "ProfileRecord",
    "errors",
    "ZambeziError",
    "InvalidValueError",
    "DTypeError",
    "OutOfMemoryError",
    "get_memory_limit",
    "set_memory_limit",
    "ColumnNotFoundError",
    "DeviceError",
    "__version__",
]


def _register_dask():
    # A Dask worker (or client) has distributed or dask.dataframe loaded:
    # register the Dask backend's dispatches there too, so that zambezi
    # partitions unpickled on a worker find them (zambezi.dask).
    import sys

    if "distributed" in sys.modules or "dask.dataframe" in sys.modules:
        try:
            import zambezi.dask  # noqa: F401
        except ImportError:  # dask without its dataframe extras
            pass


_register_dask()


_PANDAS_SCALARS = ("Timestamp", "Timedelta", "NaT")


def __getattr__(name):
    # zb.Timestamp, zb.Timedelta and zb.NaT are pandas' scalar types: the
    # values zambezi gives for one timestamp or duration (pandas needed).
    if name in _PANDAS_SCALARS:
        try:
            import pandas
        except ImportError as e:
            raise errors.UnsupportedError(f"zb.{name} is pandas' {name}: install pandas") from e
        return getattr(pandas, name)
    raise AttributeError(f"module 'zambezi' has no attribute {name!r}")
