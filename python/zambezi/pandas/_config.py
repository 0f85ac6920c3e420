"""The accelerator's settings, read once from the environment at install().

ZAMBEZI_PANDAS_FALLBACK    "" (silent), "warn" or "error": what a call that
                           zambezi was asked for and pandas had to serve does.
ZAMBEZI_PANDAS_DEBUG       "1": every call zambezi serves also runs on pandas
                           and a difference raises AssertionError.
ZAMBEZI_PANDAS_MIN_ROWS    rows from which a pandas-held object is converted to
                           zambezi for a call (default 1_000_000, measured with
                           bench/accel/threshold.py: below it, pandas' own call
                           costs less than converting).  0: always try zambezi.
ZAMBEZI_PANDAS_DEVICE      "auto" (default), "cuda" or "cpu": where the frames
                           zambezi holds live (see _devices.py).
ZAMBEZI_PANDAS_PROFILE_JSON  a file: the profile is written there at exit (as
                           --profile-json does; for pytest -p zambezi.pandas).
"""

import os
import threading

from zambezi.errors import InvalidValueError

DEFAULT_MIN_ROWS = 1_000_000
_count_lock = threading.Lock()


class _Settings:
    def __init__(self):
        self.fallback = ""
        self.debug = False
        self.min_rows = DEFAULT_MIN_ROWS
        self.device = None
        self.profile_json = None
        self.local = threading.local()   # .disabled: depth of disabled() blocks
        # disabled() blocks open in any thread: while 0, .disabled is False
        # without the thread-local look-up (the proxy modules ask it for
        # every attribute user code reads, pd.Series in a loop included)
        self.disabled_blocks = 0

    def read_env(self, environ=None):
        env = os.environ if environ is None else environ
        fallback = env.get("ZAMBEZI_PANDAS_FALLBACK", "").strip().lower()
        if fallback not in ("", "warn", "error"):
            raise InvalidValueError(
                f"ZAMBEZI_PANDAS_FALLBACK must be 'warn' or 'error' (or unset), not {fallback!r}")
        self.fallback = fallback
        self.debug = env.get("ZAMBEZI_PANDAS_DEBUG", "") not in ("", "0")
        rows = env.get("ZAMBEZI_PANDAS_MIN_ROWS", "")
        if rows:
            try:
                self.min_rows = int(rows)
            except ValueError:
                raise InvalidValueError(
                    f"ZAMBEZI_PANDAS_MIN_ROWS must be a whole number of rows, not {rows!r}") from None
        device = env.get("ZAMBEZI_PANDAS_DEVICE", "").strip().lower() or None
        if device not in (None, "cpu", "cuda", "auto"):
            raise InvalidValueError(
                f"ZAMBEZI_PANDAS_DEVICE must be 'cpu', 'cuda' or 'auto', not {device!r}")
        self.device = device
        self.profile_json = env.get("ZAMBEZI_PANDAS_PROFILE_JSON") or None

    def count_disabled(self, step):
        with _count_lock:
            self.disabled_blocks += step

    @property
    def disabled(self):
        return self.disabled_blocks > 0 and getattr(self.local, "disabled", 0) > 0


settings = _Settings()
