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
from zambezi.io import read_csv
from zambezi._compute import concat
from zambezi._merge import merge

__version__ = _core.build_info()["version"]


def devices():
    """The devices zambezi can use: a list of dicts, the CPU first, then each
    usable GPU (kind, id, name, memory_total, memory_free, cores,
    compute_capability, driver_version, runtime_version)."""
    return _core.devices()


def get_num_threads():
    """Threads the engine uses for parallel work."""
    return _core.get_num_threads()


def set_num_threads(n):
    """Set the threads the engine uses (affects operations started later)."""
    _core.set_num_threads(n)


def cuda_available():
    """True when at least one usable NVIDIA GPU is present."""
    return _core.cuda_device_count() > 0


__all__ = [
    "DataFrame",
    "Series",
    "from_pandas",
    "from_arrow",
    "read_csv",
    "concat",
    "devices",
    "get_num_threads",
    "set_num_threads",
    "cuda_available",
    "errors",
    "ZambeziError",
    "InvalidValueError",
    "DTypeError",
    "OutOfMemoryError",
    "ColumnNotFoundError",
    "DeviceError",
    "__version__",
]
