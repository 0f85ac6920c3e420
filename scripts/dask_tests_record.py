"""pytest plugin for scripts/dask-tests.sh: appends one JSON line per test
(nodeid, outcome, the first line of the error) to $DASK_TESTS_RECORD as
each test finishes, so a shard stopped by its time limit still counts what
it ran."""

import json
import os
import re


def pytest_runtest_logreport(report):
    path = os.environ.get("DASK_TESTS_RECORD")
    if not path:
        return
    if report.when == "call" or (report.when == "setup" and not report.passed):
        outcome = report.outcome
        if report.when == "setup" and report.failed:
            outcome = "error"
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        cause = ""
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            cause = crash.message if crash is not None else str(report.longrepr)
            cause = (cause.strip().splitlines() or ["(no message)"])[0]
            cause = re.sub(r"0x[0-9a-f]+", "0x..", cause)[:160]
        with open(path, "a") as f:
            f.write(json.dumps({"test": report.nodeid, "outcome": outcome, "cause": cause}) + "\n")
