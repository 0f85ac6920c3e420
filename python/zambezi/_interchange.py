"""Sharing columns with array libraries without copies.

Export (``Series`` methods):

* ``__dlpack__`` / ``__dlpack_device__`` -- DLPack, for numpy, CuPy,
  PyTorch, JAX: numeric columns without nulls, on the CPU (kDLCPU) or a GPU
  (kDLCUDA), sharing the column's memory; the column stays alive until the
  consumer lets the tensor go.  Bool columns are bitmaps in zambezi and one
  byte per value in DLPack, so they are exported as a copy (refused with
  ``copy=False``).  Nulls have no place in DLPack: a column with nulls
  raises ``BufferError`` (fill them first, or use the Arrow interface).
* ``__cuda_array_interface__`` -- version 3, for columns on a GPU only (on a
  CPU column the attribute does not exist, so CuPy and Numba do not mistake
  it for device memory); numeric columns without nulls, not bool.
* ``__arrow_c_device_array__`` -- the Arrow C Device Data Interface, any
  dtype, nulls included, on either device.

Import (``zb.Series(x)``, ``zb.DataFrame({"a": x})``): objects with
``__dlpack__`` (preferred) or ``__cuda_array_interface__`` become columns
over the producer's memory, which is given back when the last column using
it goes.

The engine's GPU work runs on CUDA's legacy default stream and is finished
before an export returns, so consumers on any stream may read the data.
"""

from zambezi import _core

_KDL_CPU, _KDL_CUDA, _KDL_CUDA_MANAGED = 1, 2, 13
_LEGACY_DEFAULT_STREAM = 1


def dlpack_device(col):
    """(device type, device id) of a column, as DLPack numbers them."""
    dev = col.device
    if dev == "cpu":
        return (_KDL_CPU, 0)
    return (_KDL_CUDA, int(dev.partition(":")[2] or 0))


def dlpack(col, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule of col (see the module doc)."""
    versioned = max_version is not None and int(tuple(max_version)[0]) >= 1
    device = None
    if dl_device is not None:
        kind, ident = (int(v) for v in dl_device)
        if kind == _KDL_CPU:
            device = "cpu"
        elif kind == _KDL_CUDA:
            device = f"cuda:{ident}"
        else:
            raise BufferError(f"__dlpack__: cannot export to DLPack device type {kind}")
    # stream: the engine's work is finished before the capsule is made, so
    # data is ready for every stream.
    return _core.column_dlpack(col, versioned, copy is not False, copy is True, device)


def cuda_array_interface(col):
    """The CUDA Array Interface dict of a GPU column (AttributeError on the CPU)."""
    return _core.column_cuda_array_interface(col)


def arrow_c_device_array(col, name, requested_schema=None, kwargs=None):
    """(schema capsule, device array capsule).  requested_schema is a request,
    not a requirement: the consumer casts if it wants another type."""
    for key, value in (kwargs or {}).items():
        if value is not None:
            raise NotImplementedError(
                f"__arrow_c_device_array__: keyword {key}={value!r} is not supported")
    return _core.column_arrow_device_array(col, name)


def column_from_array(obj):
    """An engine column sharing the memory of obj (``__dlpack__`` or
    ``__cuda_array_interface__``)."""
    if hasattr(obj, "__dlpack__"):
        kind = obj.__dlpack_device__()[0] if hasattr(obj, "__dlpack_device__") else _KDL_CPU
        # On a GPU the producer orders its work before zambezi's stream.
        stream = _LEGACY_DEFAULT_STREAM if kind in (_KDL_CUDA, _KDL_CUDA_MANAGED) else None
        try:
            capsule = obj.__dlpack__(stream=stream, max_version=(1, 0))
        except TypeError:  # a producer older than DLPack 1.0
            capsule = obj.__dlpack__(stream=stream)
        return _core.column_from_dlpack(capsule)
    return _core.column_from_cuda_array(obj)
