"""Text and HTML rendering of frames and series, in the pandas manner.

Only the rows shown are converted: a frame of more than
``display.max_rows`` rows shows its first and last ``display.min_rows // 2``
rows, taken as zero-copy slices, so printing a billion-row frame costs the
same as printing a small one (the options: zambezi._options).
"""

import html

import numpy as np

from zambezi import _dtypes, _options, _tz



def _offset_text(secs):
    """A UTC offset of secs seconds as pandas writes it: +05:30, -05:00."""
    sign = "-" if secs < 0 else "+"
    secs = abs(secs)
    text = f"{sign}{secs // 3600:02d}:{secs % 3600 // 60:02d}"
    return text + (f":{secs % 60:02d}" if secs % 60 else "")


def _too_many(n, limit):
    return limit is not None and n > limit


def _cells(col):
    """Display strings for every value of a (small) column."""
    dt = col.dtype
    values = col.to_pylist(True)  # timestamps as their int64 values
    if dt.startswith("timestamp"):
        unit = col.unit
        ints = np.array([0 if v is None else v for v in values], dtype=np.int64)
        if col.timezone is None:
            suffix = [""] * len(values)
        else:  # the zone's wall clock and its UTC offset, as pandas shows them
            secs = _tz.utc_offsets_s(col)
            suffix = [_offset_text(int(s)) for s in secs]
            ints = ints + secs * _dtypes.PER_SECOND[unit]
        stamps = ints.view(f"datetime64[{unit}]").astype(str)
        out = [str(s).replace("T", " ") + x for s, x in zip(stamps, suffix)]
        return [("NaT" if v is None else s) for v, s in zip(values, out)]
    if dt.startswith("duration"):
        return duration_cells(values, col.unit)
    if dt.startswith("list<"):
        from zambezi._lists import cells

        return cells(col)
    if dt == "category" and col.dictionary.dtype != "string":
        # the categories' own text, through the codes; a missing row is NaN
        na = "NaT" if col.dictionary.dtype.startswith(("timestamp", "duration")) else "NaN"
        cats = np.array(_cells(col.dictionary) + [na], dtype=object)
        codes = np.asarray(col.values()).astype(np.int64)
        m = col.null_mask()
        if m is not None:
            codes[np.frombuffer(m, dtype=np.bool_)] = len(cats) - 1
        return cats[codes].tolist()
    out = []
    for v in values:
        if v is None:
            out.append("NaN" if dt.startswith("float") else "<NA>")
        elif isinstance(v, float):
            out.append(f"{v:.6g}")
        else:
            s = str(v)
            width = _options.max_cell()
            if width is not None and len(s) > width:
                s = s[: max(width - 3, 0)] + "..."
            out.append(s)
    return out




def duration_cells(values, unit):
    """pandas' text for the durations (int counts of unit, None for NaT) of
    the rows shown: 'D days' when all are whole days, else 'D days
    HH:MM:SS' with the fraction digits the finest value needs (0, 6, 9)."""
    per = _dtypes.PER_SECOND[unit]
    valid = [v for v in values if v is not None]
    per_day = 86400 * per
    if all(v % per_day == 0 for v in valid):
        return ["NaT" if v is None else f"{v // per_day} days" for v in values]
    digits = 0
    for v in valid:
        frac = v % per * (10**9 // per)  # nanoseconds within the second
        need = 0 if frac == 0 else 6 if frac % 1000 == 0 else 9
        digits = max(digits, need)
    out = []
    for v in values:
        if v is None:
            out.append("NaT")
            continue
        days, rem = divmod(v, per_day)
        secs, frac = divmod(rem, per)
        sign = "+" if days < 0 else ""  # pandas: '-1 days +23:00:00'
        text = f"{days} days {sign}{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}"
        if digits:
            ns = frac * (10**9 // per)
            text += "." + f"{ns:09d}"[:digits]
        out.append(text)
    return out


def _rows_shown(n):
    if _too_many(n, _options.max_rows()):
        return list(range(_options.edge_rows())) + list(range(n - _options.edge_rows(), n)), True
    return list(range(n)), False


def _shown_cells(col, n):
    """Cells of the displayed rows of col (length n), with a gap flag."""
    if _too_many(n, _options.max_rows()):
        head = _cells(col.slice(0, _options.edge_rows()))
        tail = _cells(col.slice(n - _options.edge_rows(), _options.edge_rows()))
        return head + tail
    return _cells(col)


def _index_cells(index, n):
    """Display strings of the labels of the displayed rows, one list per
    level, and the level names."""
    from zambezi import _indexing

    if _too_many(n, _options.max_rows()):
        edge = _options.edge_rows()
        parts = [index._take(_indexing.slice_rows(0, edge))._cells(),
                 index._take(_indexing.slice_rows(n - edge, edge))._cells()]
        levels = [a + b for a, b in zip(*parts)]
    else:
        levels = index._cells()
    return levels, index.names


def _columns_shown(names):
    m = len(names)
    if _too_many(m, _options.max_cols()):
        return list(range(_options.edge_cols())) + list(range(m - _options.edge_cols(), m)), True
    return list(range(m)), False


def _label_text(v):
    if v is None or (isinstance(v, float) and v != v):
        return "NaN"
    return str(v)


def _header_cells(names, columns, shown):
    """One list per header line (the labels' levels): the text above each
    shown column; outer levels of a MultiIndex show a label once per run
    of equal labels, as pandas does."""
    if columns is None:
        return [[names[c] for c in shown]]
    values = columns.to_list()
    if columns.nlevels == 1:
        return [[_label_text(values[c]) for c in shown]]
    lines = []
    for lv in range(columns.nlevels):
        line, prev = [], None
        for c in shown:
            key = values[c][: lv + 1]
            last = lv == columns.nlevels - 1
            line.append(_label_text(values[c][lv]) if last or key != prev else "")
            prev = key
        lines.append(line)
    return lines


def frame_repr(table, index, columns=None):
    """Text of a frame: table (its data), index (row labels), columns (an
    Index of column labels, or None: the table's names)."""
    n, names = table.num_rows, table.names
    rows, row_gap = _rows_shown(n)
    cols, col_gap = _columns_shown(names)
    levels, level_names = _index_cells(index, n)
    named = any(nm is not None for nm in level_names)
    header = _header_cells(names, columns, cols)
    nh = len(header)
    col_names = [] if columns is None else columns.names
    top = nh + 1 + (1 if named else 0)  # header lines: labels, dtypes (, index names)
    columns_out = []
    for k, (cells, nm) in enumerate(zip(levels, level_names)):
        head = [""] * nh
        if k == 0:  # the column labels' level names, at the left (pandas)
            head = [("" if cn is None else str(cn)) for cn in col_names] or head
        columns_out.append(head + [""] + ([("" if nm is None else str(nm))] if named else [])
                           + cells)
    n_index = len(columns_out)
    for j, c in enumerate(cols):
        col = table.column(c)
        columns_out.append([line[j] for line in header] + [col.dtype] +
                           ([""] if named else []) + _shown_cells(col, n))
        if col_gap and j == _options.edge_cols() - 1:
            columns_out.append(["..."] + [""] * nh + ([""] if named else []) +
                               ["..."] * len(rows))
    widths = [max(len(s) for s in column) for column in columns_out]
    lines = []
    nlines = len(rows) + top
    for i in range(nlines):
        parts = []
        for k, (column, w) in enumerate(zip(columns_out, widths)):
            parts.append(column[i].ljust(w) if k < n_index else column[i].rjust(w))
        lines.append("  ".join(parts).rstrip())
        if row_gap and i == _options.edge_rows() + top - 1:
            lines.append("  ".join("...".rjust(w) for w in widths).rstrip())
    if not cols:
        lines = ["Empty DataFrame", "Columns: []", f"Index: {n} rows"]
    lines.append("")
    lines.append(f"[{n} rows x {len(names)} columns]")
    return "\n".join(lines)


def series_repr(col, name, index):
    n = col.length
    rows, row_gap = _rows_shown(n)
    levels, level_names = _index_cells(index, n)
    named = any(nm is not None for nm in level_names)
    heads = [("" if nm is None else str(nm)) for nm in level_names]
    widths = [max([len(s) for s in cells] + ([len(h)] if named else []), default=0)
              for cells, h in zip(levels, heads)]
    index = ["  ".join(c[i].ljust(w) for c, w in zip(levels, widths)) for i in range(len(rows))]
    cells = _shown_cells(col, n)
    wi = max((len(s) for s in index), default=0)
    wc = max((len(s) for s in cells), default=0)
    lines = []
    gap = "   " if col.dtype.startswith("duration") else "    "  # as pandas spaces them
    if named:  # the index names on a line of their own, as pandas shows them
        lines.append("  ".join(h.ljust(w) for h, w in zip(heads, widths)).rstrip())
    for i, (r, c) in enumerate(zip(index, cells)):
        lines.append(f"{r.ljust(wi)}{gap}{c.rjust(wc)}")
        if row_gap and i == _options.edge_rows() - 1:
            lines.append("...")
    footer = []
    if name is not None:
        footer.append(f"Name: {name}")
    if row_gap or n == 0:
        footer.append(f"Length: {n}")
    footer.append(f"dtype: {col.dtype}")
    lines.append(", ".join(footer))
    if col.dtype == "category":
        lines.append(categories_line(col))
    return "\n".join(lines)


def categories_line(col):
    """pandas' last line of a categorical's repr: 'Categories (3, int64):
    [1, 2, 3]', '[c < b < a]' when ordered, the first and last five of many."""
    d = col.dictionary
    if d.device != "cpu":
        d = d.to_device("cpu")
    k = len(d)
    shown = _cells(d) if k <= 10 else _cells(d.slice(0, 5)) + ["..."] + \
        _cells(d.slice(k - 5, 5))
    dt = "str" if d.dtype == "string" else _PANDAS_NAMES.get(d.dtype, d.dtype)
    if d.dtype.startswith("timestamp"):
        dt = f"datetime64[{d.unit}]" if d.timezone is None else \
            f"datetime64[{d.unit}, {d.timezone}]"
    elif d.dtype.startswith("duration"):
        dt = f"timedelta64[{d.unit}]"
    sep = " < " if col.ordered else ", "
    return f"Categories ({k}, {dt}): [{sep.join(shown)}]"


_PANDAS_NAMES = {"date32": "object"}


def frame_html(table, index, columns=None):
    n, names = table.num_rows, table.names
    if columns is not None:  # labels other than the names: one line of text each
        names = [" ".join(_label_text(p) for p in v) if isinstance(v, tuple) else
                 _label_text(v) for v in columns.to_list()]
    rows, row_gap = _rows_shown(n)
    levels, _ = _index_cells(index, n)
    labels = [" ".join(c[i] for c in levels) for i in range(len(rows))]
    cols, col_gap = _columns_shown(names)
    e = html.escape
    cells = {}
    for c in cols:
        cells[c] = _shown_cells(table.column(c), n)
    out = ['<div><table border="1" class="dataframe zambezi">', "<thead>",
           '<tr style="text-align: right;"><th></th>']
    for j, c in enumerate(cols):
        out.append(f"<th>{e(names[c])}</th>")
        if col_gap and j == _options.edge_cols() - 1:
            out.append("<th>...</th>")
    out.append("</tr><tr><th></th>")
    for j, c in enumerate(cols):
        out.append(f"<th><i>{e(table.column(c).dtype)}</i></th>")
        if col_gap and j == _options.edge_cols() - 1:
            out.append("<th></th>")
    out.append("</tr></thead><tbody>")
    for i, r in enumerate(rows):
        out.append(f"<tr><th>{e(labels[i])}</th>")
        for j, c in enumerate(cols):
            out.append(f"<td>{e(cells[c][i])}</td>")
            if col_gap and j == _options.edge_cols() - 1:
                out.append("<td>...</td>")
        out.append("</tr>")
        if row_gap and i == _options.edge_rows() - 1:
            span = len(cols) + (1 if col_gap else 0)
            out.append("<tr><th>...</th>" + "<td>...</td>" * span + "</tr>")
    out.append("</tbody></table>")
    out.append(f"<p>{n} rows &times; {len(names)} columns</p></div>")
    return "".join(out)
