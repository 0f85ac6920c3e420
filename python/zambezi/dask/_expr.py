"""The expression behind ``to_backend("zambezi")``: a partition-wise
conversion from pandas (or zambezi: then no task at all), as Dask's own
``ToPandasBackend`` does the other way."""

from dask.dataframe.dask_expr import new_collection
from dask.dataframe.dask_expr._expr import ToBackend

import zambezi as zb


class _ToZambeziBackend(ToBackend):
    @staticmethod
    def operation(df, options):
        from zambezi.dask._backends import to_zambezi_dispatch
        return to_zambezi_dispatch(df, **options)

    def _simplify_down(self):
        if isinstance(self.frame._meta, (zb.DataFrame, zb.Series, zb.Index)):
            return self.frame  # already zambezi


def to_zambezi(data, options):
    """data (a Dask collection) with zambezi partitions."""
    return new_collection(_ToZambeziBackend(data, options))
