"""The IPython cell magic ``%%zambezi.pandas.profile`` (registered by
``%load_ext zambezi.pandas``): runs the cell and prints, for that cell
only, what zambezi and pandas served per function and per line.  IPython
itself is not imported: the shell given to load_ipython_extension is used
as it is."""

MAGIC = "zambezi.pandas.profile"


def register(shell):
    """Register the cell magic on shell (an IPython InteractiveShell)."""

    def profile(line, cell):
        from zambezi.pandas._profile import recorder

        with recorder.scope() as part:
            shell.run_cell(cell)
        print(part.report(), end="")

    profile.__doc__ = ("Run the cell with zambezi.pandas and print what zambezi and pandas "
                       "served there, per function and per line.")
    shell.register_magic_function(profile, magic_kind="cell", magic_name=MAGIC)
