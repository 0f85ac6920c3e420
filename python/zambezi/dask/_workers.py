"""Engine threads on Dask workers: each worker runs ``nthreads`` tasks at
once, so zambezi's engine there should use that many threads, not every core
of the machine (two workers on one machine would each start a thread per
core and fight over them)."""

try:
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # dask without distributed: the plugin cannot be used
    WorkerPlugin = object


class _ThreadsPlugin(WorkerPlugin):
    name = "zambezi-threads"
    idempotent = True

    def __init__(self, nthreads=None):
        self.nthreads = nthreads

    def setup(self, worker):
        import zambezi as zb
        import zambezi.dask  # noqa: F401  (the dispatches)

        n = self.nthreads or worker.state.nthreads
        zb.set_num_threads(max(int(n), 1))


def threads_plugin(nthreads=None):
    """A distributed worker plugin that sets zambezi's engine threads, when
    a worker starts, to the worker's thread count (or nthreads), and
    imports zambezi.dask there.  Register it with
    ``client.register_plugin(...)``, or call ``set_worker_threads(client)``.

    Examples
    --------
    >>> from zambezi.dask import threads_plugin
    >>> plugin = threads_plugin(2)
    >>> plugin.name, plugin.nthreads
    ('zambezi-threads', 2)
    >>> client.register_plugin(plugin)   # doctest: +SKIP
    """
    if WorkerPlugin is object:
        raise ImportError("threads_plugin needs distributed: pip install 'zambezi[dask]'")
    return _ThreadsPlugin(nthreads)


def set_worker_threads(client, nthreads=None):
    """Register ``threads_plugin(nthreads)`` with a distributed client:
    every worker, present and future, sets zambezi's engine threads to its
    own thread count (or nthreads).  Returns {worker address: threads in
    use}.

    Examples
    --------
    >>> from zambezi.dask import set_worker_threads
    >>> set_worker_threads(client)            # doctest: +SKIP
    {'tcp://127.0.0.1:40123': 1, 'tcp://127.0.0.1:40125': 1}
    """
    client.register_plugin(threads_plugin(nthreads))

    def _threads():
        import zambezi as zb
        return zb.get_num_threads()

    return client.run(_threads)
