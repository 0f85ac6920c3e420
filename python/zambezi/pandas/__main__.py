"""python -m zambezi.pandas [--profile] [--profile-json=FILE] (script.py | -m module) [args]

Runs a script or module with the accelerator installed; --profile prints,
at exit, per function and per line of the user's code (file:line) the
calls served by zambezi and by pandas, with time and the reason for each
fallback; --profile-json writes the same as JSON.
"""

import argparse
import runpy
import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(prog="python -m zambezi.pandas",
                                 description="Run pandas code on zambezi.")
    ap.add_argument("--profile", action="store_true",
                    help="print what zambezi and pandas served, per function and per line, "
                         "at exit (to stderr)")
    ap.add_argument("--profile-json", metavar="FILE",
                    help="write the profile as JSON to FILE at exit")
    ap.add_argument("-m", dest="module", help="run a module as a script, as python -m does")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="script.py and its arguments")
    ns = ap.parse_args(argv)
    if ns.module is None and not ns.args:
        ap.error("give a script or -m module")

    import zambezi.pandas
    from zambezi.pandas._profile import recorder

    zambezi.pandas.install()
    if ns.profile or ns.profile_json:
        recorder.lines = True   # per line of the script too (a frame walk per call)
    try:
        if ns.module is not None:
            sys.argv = [ns.module] + ns.args
            runpy.run_module(ns.module, run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(ns.args)
            import os
            sys.path.insert(0, os.path.dirname(os.path.abspath(ns.args[0])))
            runpy.run_path(ns.args[0], run_name="__main__")
    finally:
        if ns.profile:
            sys.stdout.flush()
            sys.stderr.write(recorder.report())
        if ns.profile_json:
            recorder.write_json(ns.profile_json)


if __name__ == "__main__":
    main()
