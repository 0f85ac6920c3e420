"""``python -m zambezi doctor``: this machine, this build of zambezi, its GPUs.

Plain text, no network access.  Everything printed comes from the running
process: the Python interpreter, /proc (Linux), and zambezi's engine.
"""
import os
import platform
import sys

import zambezi as zb

SIMD_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "neon", "asimd", "sve")


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    have = set(line.split(":", 1)[1].split())
                    return [flag for flag in SIMD_FLAGS if flag in have]
    except OSError:
        pass
    return []


def _gib(n):
    return f"{n / 2**30:.1f} GiB"


def run_doctor(out=sys.stdout):
    def say(text=""):
        print(text, file=out, flush=True)

    gil = getattr(sys, "_is_gil_enabled", None)
    gil_text = "yes" if gil is None or gil() else "no (free-threaded build)"
    info = zb._core.build_info()
    devices = zb.devices()
    cpu = devices[0]
    say(f"Python:          {platform.python_version()} ({sys.executable})")
    say(f"GIL:             {gil_text}")
    say(f"CPU:             {cpu['name']}")
    say(f"cores:           {cpu['cores']} available to this process "
        f"({os.cpu_count()} in the machine); zambezi uses {zb.get_num_threads()} threads")
    flags = _cpu_flags()
    say(f"SIMD:            {' '.join(flags) if flags else 'none detected'}")
    say(f"memory:          {_gib(cpu['memory_total'])} total, {_gib(cpu['memory_free'])} free")
    say(f"zambezi:         {zb.__version__}")
    if info["cuda_compiled"]:
        say(f"build:           CUDA backend compiled in (architectures {info['cuda_architectures']})")
    else:
        say("build:           CPU only (no CUDA backend in this build)")
    gpus = [d for d in devices if d["kind"] == "cuda"]
    for g in gpus:
        cc = g["compute_capability"]
        say(f"GPU cuda:{g['id']}:      {g['name']}, {_gib(g['memory_total'])} "
            f"({_gib(g['memory_free'])} free), compute capability {cc[0]}.{cc[1]}, "
            f"{g['cores']} multiprocessors, driver {g['driver_version']}, "
            f"runtime {g['runtime_version']}")
    for ordinal, why in zb._core.cuda_devices_left_out():
        say(f"GPU cuda:{ordinal} left out: {why}")
    if not gpus:
        say(f"GPUs:            none -- {zb._core.cuda_unavailable_reason()}")
        say("                 zambezi runs everything on the CPU here.  To try a GPU for free or")
        say("                 cheaply: a hosted notebook with a GPU runtime (Google Colab, Kaggle")
        say("                 notebooks), or a cloud GPU instance (any major cloud; look for")
        say("                 NVIDIA L4, A10, A100 or H100).  Then: pip install zambezi, and")
        say("                 python -m zambezi doctor there.")
    return 0
