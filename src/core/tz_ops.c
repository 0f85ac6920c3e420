/*
 * tz_ops.c -- the checked entry points of the time zone conversions
 * (zambezi/tz.h): UTC instants to wall times and wall times to UTC.
 */
#include "core/internal.h"
#include "core/tz.h"

static zb_status check_stamps(const zb_column *col, const zb_tz *tz, zb_column **out,
                              const char *what, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "%s: NULL output", what);
  *out = NULL;
  if (col == NULL || tz == NULL) return zb_error_set(err, ZB_EINVAL, "%s: NULL argument", what);
  if (col->type != ZB_TIMESTAMP)
    return zb_error_set(err, ZB_ETYPE, "%s needs a timestamp column, not %s", what,
                        zb_type_name(col->type));
  if ((int)col->unit < ZB_SECOND || col->unit > ZB_NANO)
    return zb_error_set(err, ZB_EINVAL, "invalid time unit %d", (int)col->unit);
  return ZB_OK;
}

zb_status zb_column_tz_to_wall(const zb_column *col, const zb_tz *tz, zb_column **out,
                               zb_error *err) {
  ZB_RETURN_NOT_OK(check_stamps(col, tz, out, "tz_convert", err));
  zb__call c = {.op = ZB__OP_TZ, .variant = 0, .name = "tz_to_wall"};
  c.in[0] = col;
  c.p.tz.tz = tz;
  return zb__dispatch_column(col->device, &c, out, err);
}

zb_status zb_column_tz_localize(const zb_column *col, const zb_tz *tz, const char *tz_name,
                                zb_tz_ambiguous ambiguous, const zb_column *ambiguous_rows,
                                zb_tz_nonexistent nonexistent, zb_column **out,
                                zb_error *err) {
  ZB_RETURN_NOT_OK(check_stamps(col, tz, out, "tz_localize", err));
  if (tz_name == NULL || tz_name[0] == '\0')
    return zb_error_set(err, ZB_EINVAL, "tz_localize: no zone name");
  if ((int)ambiguous < 0 || ambiguous > ZB_TZ_AMBIGUOUS_INFER)
    return zb_error_set(err, ZB_EINVAL, "tz_localize: unknown ambiguous choice %d",
                        (int)ambiguous);
  if ((int)nonexistent < 0 || nonexistent > ZB_TZ_NONEXISTENT_SHIFT_BACKWARD)
    return zb_error_set(err, ZB_EINVAL, "tz_localize: unknown nonexistent choice %d",
                        (int)nonexistent);
  if ((ambiguous == ZB_TZ_AMBIGUOUS_ARRAY) != (ambiguous_rows != NULL))
    return zb_error_set(err, ZB_EINVAL,
                        "tz_localize: a bool column of ambiguous choices goes with "
                        "ZB_TZ_AMBIGUOUS_ARRAY and only with it");
  if (ambiguous_rows != NULL) {
    if (ambiguous_rows->type != ZB_BOOL)
      return zb_error_set(err, ZB_ETYPE, "tz_localize: ambiguous must be bool, not %s",
                          zb_type_name(ambiguous_rows->type));
    if (ambiguous_rows->length != col->length)
      return zb_error_set(err, ZB_EINVAL,
                          "tz_localize: ambiguous has %lld values for %lld timestamps",
                          (long long)ambiguous_rows->length, (long long)col->length);
    if (ambiguous_rows->device.kind != col->device.kind ||
        ambiguous_rows->device.id != col->device.id)
      return zb_error_set(err, ZB_EDEVICE, "tz_localize: ambiguous is on another device");
  }
  zb__call c = {.op = ZB__OP_TZ, .variant = 1, .name = "tz_localize"};
  c.in[0] = col;
  c.in[1] = ambiguous_rows;
  c.p.tz.tz = tz;
  c.p.tz.name = tz_name;
  c.p.tz.ambiguous = (int)ambiguous;
  c.p.tz.nonexistent = (int)nonexistent;
  return zb__dispatch_column(col->device, &c, out, err);
}
