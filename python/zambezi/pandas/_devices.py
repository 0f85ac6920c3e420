"""Where the frames zambezi holds for the accelerator live.

ZAMBEZI_PANDAS_DEVICE (read at install()):

- ``auto`` (the default): on a GPU when zambezi sees one and the frame is at
  least ``zambezi.get_auto_threshold()`` bytes (device="auto"'s measured
  cut-over, 32 MiB unless set), else on the CPU;
- ``cuda``: every frame zambezi holds is on the (first) GPU; install()
  raises DeviceError when zambezi sees no GPU;
- ``cpu``: the CPU only.

A frame moves when zambezi first holds it (converted from pandas, or read
by read_csv/read_parquet); results of operations on it stay where zambezi
computes them.  An operation the GPU backend lacks runs on the CPU inside
zambezi (its own profile shows it); an error there sends the call to
pandas, as any zambezi error does.
"""

from zambezi.errors import DeviceError, InvalidValueError

SETTINGS = ("auto", "cuda", "cpu")


def gpus(devices):
    """The GPUs in a zambezi.devices() list."""
    return [d for d in devices if d.get("kind") == "cuda"]


def choose(setting, nbytes, devices, threshold):
    """The device ("cpu", "cuda:N") for data of nbytes bytes under setting
    (one of SETTINGS, None meaning "auto"), given zambezi.devices()'s list
    and the auto threshold in bytes."""
    setting = setting or "auto"
    if setting not in SETTINGS:
        raise InvalidValueError(
            f"ZAMBEZI_PANDAS_DEVICE must be 'cpu', 'cuda' or 'auto', not {setting!r}")
    if setting == "cpu":
        return "cpu"
    found = gpus(devices)
    if setting == "cuda":
        if not found:
            raise DeviceError("ZAMBEZI_PANDAS_DEVICE=cuda, but zambezi sees no GPU "
                              "(python -m zambezi doctor says why)")
        return found[0]["device"]
    return found[0]["device"] if found and nbytes >= threshold else "cpu"


class _Placement:
    """The accelerator's placement: set up once by install() from the
    setting and zambezi.devices(), then place() for each frame zambezi
    takes on.  With no GPU (or setting "cpu") place() returns its argument
    at the cost of one test."""

    def __init__(self):
        self.setting = "cpu"
        self.devices = []
        self.active = False

    def setup(self, setting, devices):
        choose(setting, 0, devices, 0)   # a bad setting, or cuda without a GPU: raise now
        self.setting = setting or "auto"
        self.devices = list(devices)
        self.active = self.setting != "cpu" and bool(gpus(self.devices))

    def place(self, obj):
        """obj (a zambezi DataFrame or Series) on the device it belongs on."""
        if not self.active:
            return obj
        nbytes = getattr(obj, "nbytes", None)
        if nbytes is None or not hasattr(obj, "to"):   # a reader's chunk iterator
            return obj
        import zambezi as zb

        dev = choose(self.setting, nbytes, self.devices, zb.get_auto_threshold())
        return obj if obj.device == dev else obj.to(dev)


placement = _Placement()
