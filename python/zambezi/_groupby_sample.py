"""GroupBy.sample, as pandas draws it: numpy's RandomState seeded as
pandas seeds it (``random_state``), one ``choice`` per group in the
groups' order (sorted keys unless sort=False; dropped missing keys
left out), each group's rows in row order, so the same seed picks the
same rows as pandas.  ``n`` rows of every group, or ``round(frac * size)``;
``weights`` (a list, array or Series over all rows) normalized within
each group.  One numpy call per group (pandas' contract draws per group),
then one engine gather of the picked rows.
"""

import numpy as np

from zambezi import _indexing
from zambezi._frame_extra import _random_state, _sample_size, _weights_array
from zambezi.errors import InvalidValueError


class GroupBySample:
    """GroupBy.sample (a mixin of zambezi._groupby.GroupBy)."""

    __slots__ = ()

    def sample(self, n=None, frac=None, replace=False, weights=None, random_state=None):
        """A random sample of each group's rows (see zambezi._groupby_sample):
        ``n`` rows per group (default 1) or a fraction ``frac``, with or
        without replacement, drawn as pandas draws them for the same
        ``random_state``.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "b", "a"], "v": [1, 2, 3, 4, 5]})
        >>> df.groupby("k").sample(n=1, random_state=0)["k"].to_list()
        ['a', 'b']
        """
        obj = self._obj
        if obj._ndim == 2 and self._selection is not None:
            obj = obj[self._selection[0]] if self._single else obj[list(self._selection)]
        if len(obj) == 0:
            return obj
        size = _sample_size(n, frac, replace)
        w = None if weights is None else _weights_array(obj, weights, len(obj), 0)
        rs = _random_state(random_state)
        keys, order, starts = self._rows_by_group()
        picked = []
        for g in range(len(keys)):
            rows = order[starts[g]:starts[g + 1]]
            take = size if size is not None else round(frac * len(rows))
            p = None
            if w is not None:
                total = w[rows].sum()
                if total == 0:
                    raise InvalidValueError("Invalid weights: weights sum to zero")
                p = w[rows] / total
                if not replace and take * p.max() > 1:
                    raise InvalidValueError(
                        "Weighted sampling cannot be achieved with replace=False. Either "
                        "set replace=True or use smaller weights.")
            if not replace and take > len(rows):
                raise InvalidValueError("Cannot take a larger sample than population when "
                                        "'replace=False'")
            picked.append(rows[rs.choice(len(rows), size=take, replace=replace, p=p)])
        pos = np.concatenate(picked) if picked else np.zeros(0, dtype=np.int64)
        return obj._select_rows(_indexing.take_rows(
            _indexing.positions_column(pos.astype(np.int64), len(obj), "sample")))
