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
