"""device="auto": the GPU when there is one and the data is large enough
for it to pay, else the CPU.

Moving a table to a GPU costs a copy over PCIe (or NVLink) and each GPU
operation a kernel launch; on small tables the CPU's cores finish first.
The cut-over is a table size in bytes: ``AUTO_DEFAULT_BYTES`` (32 MiB), or
the environment variable ``ZAMBEZI_AUTO_GPU_BYTES`` when it is set, or
what ``set_auto_threshold`` chose.  bench/gpu_auto.py measures where the
GPU starts to win on a given machine (a filter, a derived column, a
group-by and a sort, copy included) and prints the value to use.
"""
import os

from zambezi import _core
from zambezi.errors import InvalidValueError

AUTO_DEFAULT_BYTES = 32 << 20

_threshold = None


def get_auto_threshold():
    """The table size in bytes from which ``device="auto"`` picks a GPU.

    Examples
    --------
    >>> zb.get_auto_threshold() > 0
    True
    """
    if _threshold is not None:
        return _threshold
    env = os.environ.get("ZAMBEZI_AUTO_GPU_BYTES")
    if env:
        try:
            return max(int(float(env)), 0)
        except ValueError:
            raise InvalidValueError(
                f"ZAMBEZI_AUTO_GPU_BYTES must be a number of bytes, not {env!r}") from None
    return AUTO_DEFAULT_BYTES


def set_auto_threshold(nbytes):
    """Set the table size in bytes from which ``device="auto"`` picks a
    GPU (None restores the default); returns the previous value.

    Examples
    --------
    >>> old = zb.set_auto_threshold(0)        # any table goes to a GPU
    >>> zb.DataFrame({"a": [1, 2]}).to("auto").device == (
    ...     "cuda:0" if zb.cuda_available() else "cpu")
    True
    >>> _ = zb.set_auto_threshold(old)
    """
    global _threshold
    prev = get_auto_threshold()
    if nbytes is None:
        _threshold = None
        return prev
    if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes < 0:
        raise InvalidValueError(f"the auto threshold must be a byte count >= 0, not {nbytes!r}")
    _threshold = nbytes
    return prev


def resolve(device, nbytes):
    """The device `device` names for data of `nbytes` bytes: "auto" becomes
    "cuda" or "cpu"; anything else is returned as given."""
    if device != "auto":
        return device
    threshold = get_auto_threshold()  # a bad setting is an error with or without a GPU
    return "cuda" if _core.cuda_device_count() > 0 and nbytes >= threshold else "cpu"
