"""The process's peak resident memory in MB, for the benches' reports.

VmHWM from /proc/self/status where there is one (Linux): ru_maxrss is not
used there, because a process started by fork+exec keeps the peak of the
process it was forked from (a bench driver that generated the data, a
Dask nanny), which is not its own.  Elsewhere, ru_maxrss.
"""
import resource


def peak_mb():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
