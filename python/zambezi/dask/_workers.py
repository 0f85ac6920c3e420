"""Dask workers: engine threads and the device partitions live on.

- Threads: each worker runs ``nthreads`` tasks at once, so zambezi's engine
  there should use that many threads, not every core of the machine (two
  workers on one machine would each start a thread per core and fight over
  them).
- Device: the plugin's ``device`` ("auto", "cpu" or "cuda"; by default the
  Dask config ``zambezi.device``, else "auto") picks this worker's device
  when it starts.  A worker that sees GPUs (``zb.devices()`` lists "cuda")
  takes one: the first it sees (dask-cuda gives each worker its own GPU
  through CUDA_VISIBLE_DEVICES), or GPU ``name % count`` when it sees
  several and its name is an int (LocalCluster's 0, 1, ...).  "cuda" on a
  worker without a GPU is an error when the plugin is registered; "auto"
  there means the CPU.  Then partitions that reach the worker (unpickled
  from another worker or the client, or read by ``dd.read_csv`` /
  ``dd.read_parquet``) are moved to that GPU; with "auto" only those of at
  least ``zb.get_auto_threshold()`` bytes, as ``DataFrame.to("auto")``
  decides.  Partitions always travel through the host: a device frame
  pickles from a host copy and is moved to the device again where it
  lands.  The state is per process: several workers in one process
  (``processes=False``) share the last plugin's choice.

The GPU side of this path has not been run on a GPU yet (there was none
where it was written): the CPU side, the config and the choice of GPU are
tested with a stubbed device list.
"""

import pickle

try:
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # dask without distributed: the plugin cannot be used
    WorkerPlugin = object

_KINDS = ("auto", "cpu", "cuda")
_state = {"device": None, "auto": False}   # None: partitions stay where they arrive


def _check_device(device, where):
    from zambezi.errors import InvalidValueError
    if device not in _KINDS:
        raise InvalidValueError(f"{where}: device must be one of {', '.join(_KINDS)}, not "
                                f"{device!r} (the Dask config key is zambezi.device)")
    return device


def choose_device(device, worker_name=None, devices=None):
    """(device name, auto) for a worker asked for `device` ("auto", "cpu" or
    "cuda"): "cpu", or "cuda:N" with N picked from the GPUs in `devices`
    (``zb.devices()`` by default) by the worker's int name; auto is true
    when only large partitions go to the GPU."""
    import zambezi as zb
    from zambezi.errors import DeviceError

    _check_device(device, "zambezi.dask worker")
    if device == "cpu":
        return "cpu", False
    gpus = [d["device"] for d in (zb.devices() if devices is None else devices)
            if d["kind"] == "cuda"]
    if not gpus:
        if device == "cuda":
            raise DeviceError("zambezi.dask worker: device='cuda' but zambezi sees no GPU on "
                              "this worker (python -m zambezi doctor says why)")
        return "cpu", False
    i = worker_name % len(gpus) if isinstance(worker_name, int) else 0
    return gpus[i], device == "auto"


def set_device(device, auto=False):
    """Make `device` ("cpu", "cuda:N" or None: leave partitions where they
    arrive) the device this process places partitions on."""
    _state["device"] = device
    _state["auto"] = bool(auto)


def place(obj):
    """obj (a zambezi DataFrame or Series) on this worker's device: moved
    to its GPU, or to the host on a CPU worker; anything else unchanged."""
    import zambezi as zb

    dev = _state["device"]
    if dev is None or not isinstance(obj, (zb.DataFrame, zb.Series)):
        return obj
    if dev == "cpu":
        return obj if obj.device == "cpu" else obj.to("cpu")
    if obj.device == dev:
        return obj
    if _state["auto"] and obj.nbytes < zb.get_auto_threshold():
        return obj
    return obj.to(dev)


def _register_serializers():
    """Dask's "dask" serialization family for zambezi frames: pickle
    protocol 5 with the buffers out of band (as the "pickle" family would,
    a device frame from a host copy), and ``place`` on the receiving side."""
    try:
        from distributed.protocol.serialize import dask_deserialize, dask_serialize
    except ImportError:
        return
    import zambezi as zb

    types = (zb.DataFrame, zb.Series)

    @dask_serialize.register(types)
    def _serialize(obj):
        buffers = []
        head = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
        return {"device": obj.device}, [head] + [b.raw() for b in buffers]

    @dask_deserialize.register(types)
    def _deserialize(header, frames):
        return place(pickle.loads(frames[0], buffers=frames[1:]))


class _ThreadsPlugin(WorkerPlugin):
    name = "zambezi-threads"
    idempotent = True

    def __init__(self, nthreads=None, device=None):
        self.nthreads = nthreads
        self.device = device

    def setup(self, worker):
        import dask

        import zambezi as zb
        import zambezi.dask  # noqa: F401  (the dispatches)

        n = self.nthreads or worker.state.nthreads
        zb.set_num_threads(max(int(n), 1))
        device = self.device or dask.config.get("zambezi.device", "auto")
        set_device(*choose_device(device, worker.name))


def threads_plugin(nthreads=None, device=None):
    """A distributed worker plugin that sets zambezi's engine threads, when
    a worker starts, to the worker's thread count (or nthreads), picks the
    device its partitions live on (``device``: "auto", "cpu" or "cuda"; by
    default the Dask config ``zambezi.device`` of the client, else of the
    worker, else "auto": a GPU when the worker has one, for partitions
    large enough to pay for the copy), and imports zambezi.dask there.
    Register it with ``client.register_plugin(...)``, or call
    ``set_worker_threads(client)``.  The GPU placement is untested on a GPU
    so far (see zambezi.dask._workers).

    Examples
    --------
    >>> from zambezi.dask import threads_plugin
    >>> plugin = threads_plugin(2, device="cpu")
    >>> plugin.name, plugin.nthreads, plugin.device
    ('zambezi-threads', 2, 'cpu')
    >>> client.register_plugin(plugin)   # doctest: +SKIP
    """
    if WorkerPlugin is object:
        raise ImportError("threads_plugin needs distributed: pip install 'zambezi[dask]'")
    if device is None:
        import dask
        device = dask.config.get("zambezi.device", None)
    if device is not None:
        _check_device(device, "threads_plugin")
    return _ThreadsPlugin(nthreads, device)


def set_worker_threads(client, nthreads=None, device=None):
    """Register ``threads_plugin(nthreads, device)`` with a distributed
    client: every worker, present and future, sets zambezi's engine threads
    to its own thread count (or nthreads) and picks its device (see
    ``threads_plugin``).  Returns {worker address: threads in use}.

    Examples
    --------
    >>> from zambezi.dask import set_worker_threads
    >>> set_worker_threads(client)            # doctest: +SKIP
    {'tcp://127.0.0.1:40123': 1, 'tcp://127.0.0.1:40125': 1}
    """
    client.register_plugin(threads_plugin(nthreads, device))

    def _threads():
        import zambezi as zb
        return zb.get_num_threads()

    return client.run(_threads)
