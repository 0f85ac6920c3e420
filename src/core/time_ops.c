/*
 * time_ops.c -- the checked entry point of zb_column_parse_time: strings to
 * timestamps or durations (the per-row parsers are src/core/time_parse.h).
 */
#include <string.h>

#include "core/internal.h"

/* Whether every % directive of fmt is one time_parse.h knows. */
static bool format_ok(const char *fmt, char *bad) {
  for (const char *f = fmt; *f != '\0'; f++) {
    if (*f != '%') continue;
    f++;
    if (*f == '\0' || strchr("YymdHIpMSfzbBhj%", *f) == NULL) {
      *bad = *f;
      return false;
    }
  }
  return true;
}

zb_status zb_column_parse_time(const zb_column *col, zb_parse_kind kind, const char *format,
                               zb_column **out, zb_parse_info *info, zb_error *err) {
  if (out == NULL || info == NULL) return zb_error_set(err, ZB_EINVAL, "parse_time: NULL output");
  *out = NULL;
  memset(info, 0, sizeof *info);
  info->bad_row = -1;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "parse_time: NULL column");
  if ((int)kind < 0 || kind > ZB_PARSE_TIMEDELTA)
    return zb_error_set(err, ZB_EINVAL, "parse_time: unknown kind %d", (int)kind);
  if (kind == ZB_PARSE_TIMEDELTA && format != NULL)
    return zb_error_set(err, ZB_EINVAL, "parse_time: timedeltas take no format");
  char bad = 0;
  if (format != NULL && !format_ok(format, &bad))
    return zb_error_set(err, ZB_EINVAL,
                        "parse_time: format '%s' has the directive %%%c, which is not supported "
                        "(supported: %%Y %%y %%m %%d %%H %%I %%p %%M %%S %%f %%z %%b %%B %%j %%%%)",
                        format, bad == 0 ? ' ' : bad);
  if (col->type != ZB_STRING && col->type != ZB_CATEGORICAL)
    return zb_error_set(err, ZB_ETYPE, "parse_time: needs a string column, not %s",
                        zb_type_name(col->type));
  zb_column *str = NULL;
  ZB_RETURN_NOT_OK(zb__need_string_categories(col, "parsing dates and times", err));
  if (col->type == ZB_CATEGORICAL)
    ZB_RETURN_NOT_OK(zb_column_cast(col, ZB_STRING, ZB_MICRO, &str, err));
  zb__call c = {.op = ZB__OP_PARSE_TIME, .variant = (int32_t)kind};
  c.in[0] = str != NULL ? str : col;
  c.p.parse.format = format;
  c.p.parse.info = info;
  zb_status st = zb__dispatch_column(col->device, &c, out, err);
  zb_column_release(str);
  return st;
}
