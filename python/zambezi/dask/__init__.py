"""zambezi as a Dask DataFrame backend: Dask plans and schedules, every
partition is a zambezi DataFrame or Series, and each worker runs its tasks
in zambezi's C engine on its own cores.

Select it with ``dask.config.set({"dataframe.backend": "zambezi"})`` (or
``DASK_DATAFRAME__BACKEND=zambezi``), then ``dd.from_pandas``,
``dd.from_dict``, ``dd.read_csv`` and ``dd.read_parquet`` make zambezi
partitions; an
existing collection moves with ``ddf.to_backend("zambezi")`` and back with
``ddf.to_backend("pandas")``.  docs/dask.md has a LocalCluster example.

Importing this module registers everything Dask needs (zambezi.dask._backends
holds the dispatches, zambezi.dask._io the readers).  Dask finds the
backend through the entry points ``dask.dataframe.backends`` and
``dask_expr.dataframe.backends`` (pyproject.toml) of an installed zambezi;
``import zambezi`` in a process that has loaded ``distributed`` or
``dask.dataframe`` (every Dask worker) imports this module as well, so
workers that receive zambezi partitions have the dispatches.
"""

from zambezi.dask._backends import backend_entrypoint, from_pandas, register
from zambezi.dask._workers import set_worker_threads, threads_plugin

__all__ = ["backend_entrypoint", "from_pandas", "set_worker_threads", "threads_plugin"]

register()
