/*
 * dates.c -- conversions between datetime.date / datetime.datetime and the
 * engine's int32 days and int64 microseconds.  This is the only file that
 * includes datetime.h: its C API lives in a per-file pointer that
 * zbpy_dates_init fills when the module is executed.
 */
#include "zbpy.h"

#include <datetime.h>

#include "core/calendar.h"

const int64_t zbpy_per_second[4] = {1, 1000, 1000000, 1000000000};

int zbpy_dates_init(void) {
  PyDateTime_IMPORT;
  return PyDateTimeAPI == NULL ? -1 : 0;
}

PyObject *zbpy_date_from_days(int32_t days) {
  int64_t y;
  unsigned m, d;
  zb__civil_from_days(days, &y, &m, &d);
  if (y < 1 || y > 9999) {
    PyErr_Format(PyExc_OverflowError,
                 "date32 value %d (year %lld) is outside the range of datetime.date", days,
                 (long long)y);
    return NULL;
  }
  return PyDate_FromDate((int)y, (int)m, (int)d);
}

/* A timestamp value in `unit` (zb_time_unit) since the epoch as a
 * datetime.datetime: naive (UTC wall time), or aware in UTC when utc (the
 * caller converts it to the column's zone).  Nanoseconds are truncated to
 * microseconds, the finest datetime holds.  OverflowError outside
 * datetime's years 1..9999. */
PyObject *zbpy_datetime_from(int64_t v, int unit, bool utc) {
  int64_t per_second = zbpy_per_second[unit], per_day = 86400 * per_second;
  int64_t days = v / per_day, rem = v % per_day;
  if (rem < 0) {
    rem += per_day;
    days -= 1;
  }
  int64_t secs = rem / per_second, us = rem % per_second * 1000000 / per_second;
  int64_t y;
  unsigned m, d;
  zb__civil_from_days(days, &y, &m, &d);
  if (y < 1 || y > 9999) {
    PyErr_Format(PyExc_OverflowError,
                 "timestamp value %lld (year %lld) is outside the range of datetime.datetime",
                 (long long)v, (long long)y);
    return NULL;
  }
  return PyDateTimeAPI->DateTime_FromDateAndTime(
      (int)y, (int)m, (int)d, (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60),
      (int)us, utc ? PyDateTime_TimeZone_UTC : Py_None, PyDateTimeAPI->DateTimeType);
}

PyObject *zbpy_timedelta_from(int64_t v, int unit) {
  int64_t per_second = zbpy_per_second[unit];
  int64_t secs = v / per_second, rem = v % per_second;
  if (rem < 0) {
    rem += per_second;
    secs -= 1;
  }
  int64_t us = rem * 1000000 / per_second; /* floor: rem >= 0 */
  int64_t days = secs / 86400, sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    days -= 1;
  }
  if (days > 999999999 || days < -999999999) {
    PyErr_Format(PyExc_OverflowError, "duration value %lld is outside datetime.timedelta's range",
                 (long long)v);
    return NULL;
  }
  return PyDelta_FromDSU((int)days, (int)sod, (int)us);
}

int zbpy_is_timedelta(PyObject *o) { return PyDelta_Check(o) ? 1 : 0; }

int zbpy_timedelta_to_unit(PyObject *o, int unit, int64_t *out) {
  int64_t per_second = zbpy_per_second[unit];
  PyObject *ns = PyObject_HasAttrString(o, "asm8") ? PyObject_GetAttrString(o, "value") : NULL;
  if (ns != NULL) { /* pd.Timedelta: its nanoseconds */
    long long v = PyLong_AsLongLong(ns);
    Py_DECREF(ns);
    if (v == -1 && PyErr_Occurred()) return -1;
    int64_t div = 1000000000 / per_second, q = v / div;
    if (v % div != 0 && v < 0) q--;
    *out = q;
    return 0;
  }
  PyErr_Clear();
  int64_t days = PyDateTime_DELTA_GET_DAYS(o), secs = PyDateTime_DELTA_GET_SECONDS(o),
          us = PyDateTime_DELTA_GET_MICROSECONDS(o);
  /* |days| < 10^9: days * 86400 * 10^9 overflows int64 past ~106751 days */
  int64_t limit = INT64_MAX / per_second / 86400 - 1;
  if (days > limit || days < -limit) {
    PyErr_Format(PyExc_OverflowError, "timedelta %R is out of range for the column's unit", o);
    return -1;
  }
  int64_t v = (days * 86400 + secs) * per_second;
  v += per_second >= 1000000 ? us * (per_second / 1000000)
                             : (us >= 0 ? us / (1000000 / per_second) : 0);
  *out = v;
  return 0;
}

int zbpy_date_kind(PyObject *o) {
  if (PyDateTime_Check(o)) return 1;
  if (PyDate_Check(o)) return 2;
  return 0;
}

int32_t zbpy_date_to_days(PyObject *date) {
  return (int32_t)zb__days_from_civil(PyDateTime_GET_YEAR(date),
                                      (unsigned)PyDateTime_GET_MONTH(date),
                                      (unsigned)PyDateTime_GET_DAY(date));
}

PyObject *zbpy_datetime_tzinfo(PyObject *dt) {
  return ((PyDateTime_DateTime *)dt)->hastzinfo ? ((PyDateTime_DateTime *)dt)->tzinfo : Py_None;
}

int zbpy_fixed_offset_name(PyObject *zone, char *out, size_t size) {
  /* datetime.timezone only: other tzinfo classes (dateutil's tzlocal ...)
   * answer utcoffset(None) with one offset of several */
  if (Py_TYPE(zone) != Py_TYPE(PyDateTime_TimeZone_UTC)) return 0;
  PyObject *off = PyObject_CallMethod(zone, "utcoffset", "O", Py_None);
  if (off == NULL) {
    PyErr_Clear();
    return 0;
  }
  int done = 0;
  if (PyDelta_Check(off) && PyDateTime_DELTA_GET_MICROSECONDS(off) == 0) {
    long secs = (long)PyDateTime_DELTA_GET_DAYS(off) * 86400 + PyDateTime_DELTA_GET_SECONDS(off);
    long mag = secs < 0 ? -secs : secs;
    if (secs != 0 && mag % 60 == 0 && mag < 86400) {
      snprintf(out, size, "%c%02ld:%02ld", secs < 0 ? '-' : '+', mag / 3600, mag / 60 % 60);
      done = 1;
    }
  }
  Py_DECREF(off);
  return done;
}

int zbpy_datetime_to_us(PyObject *dt, int64_t *out, int *aware) {
  int64_t days = zb__days_from_civil(PyDateTime_GET_YEAR(dt),
                                     (unsigned)PyDateTime_GET_MONTH(dt),
                                     (unsigned)PyDateTime_GET_DAY(dt));
  int64_t secs = (int64_t)PyDateTime_DATE_GET_HOUR(dt) * 3600 +
                 (int64_t)PyDateTime_DATE_GET_MINUTE(dt) * 60 +
                 PyDateTime_DATE_GET_SECOND(dt);
  int64_t us = (days * 86400 + secs) * 1000000 + PyDateTime_DATE_GET_MICROSECOND(dt);
  *aware = 0;
  PyObject *tzinfo = ((PyDateTime_DateTime *)dt)->hastzinfo
                         ? ((PyDateTime_DateTime *)dt)->tzinfo
                         : Py_None;
  if (tzinfo != Py_None) {
    PyObject *off = PyObject_CallMethod(dt, "utcoffset", NULL);
    if (off == NULL) return -1;
    if (off != Py_None) {
      if (!PyDelta_Check(off)) {
        Py_DECREF(off);
        PyErr_SetString(PyExc_TypeError, "utcoffset() did not return a timedelta");
        return -1;
      }
      int64_t off_us = ((int64_t)PyDateTime_DELTA_GET_DAYS(off) * 86400 +
                        PyDateTime_DELTA_GET_SECONDS(off)) *
                           1000000 +
                       PyDateTime_DELTA_GET_MICROSECONDS(off);
      us -= off_us;
      *aware = 1;
    }
    Py_DECREF(off);
  }
  *out = us;
  return 0;
}

int zbpy_is_nat(PyObject *o) {
  if (o == Py_None || PyDateTime_CheckExact(o) || PyDate_CheckExact(o)) return 0;
  const char *tn = Py_TYPE(o)->tp_name, *dot = strrchr(tn, '.');
  return strcmp(dot != NULL ? dot + 1 : tn, "NaTType") == 0;
}

int zbpy_datetime_unit(PyObject *dt, int *unit, int *nanos) {
  *unit = ZB_MICRO;
  *nanos = 0;
  if (PyDateTime_CheckExact(dt)) return 0;
  PyObject *u = PyObject_GetAttrString(dt, "unit");
  if (u == NULL) { /* another datetime subclass: microseconds */
    PyErr_Clear();
    return 0;
  }
  const char *name = PyUnicode_Check(u) ? PyUnicode_AsUTF8(u) : NULL;
  if (name == NULL) PyErr_Clear();
  else if (strcmp(name, "s") == 0) *unit = ZB_SECOND;
  else if (strcmp(name, "ms") == 0) *unit = ZB_MILLI;
  else if (strcmp(name, "ns") == 0) *unit = ZB_NANO;
  Py_DECREF(u);
  if (*unit != ZB_NANO) return 0;
  PyObject *ns = PyObject_GetAttrString(dt, "nanosecond");
  if (ns == NULL) {
    PyErr_Clear();
    return 0;
  }
  long v = PyLong_Check(ns) ? PyLong_AsLong(ns) : 0;
  Py_DECREF(ns);
  if (v == -1 && PyErr_Occurred()) return -1;
  *nanos = (int)(v >= 0 && v < 1000 ? v : 0);
  return 0;
}
