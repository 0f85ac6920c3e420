/*
 * strings_kernels.h -- the CPU entry points of the string, date/time and
 * elementwise-extra kernels (src/cpu/strings.c, datetime.c, elementwise.c),
 * called by src/core/strings_ops.c after it validated the arguments and by
 * the CPU backend table in src/core/device.c.  Inputs live on the host and
 * have the types the backend table's comments in src/core/internal.h state.
 */
#ifndef ZAMBEZI_CPU_STRINGS_KERNELS_H
#define ZAMBEZI_CPU_STRINGS_KERNELS_H

#include "core/internal.h"

zb_status zb__cpu_str(const zb_column *col, const zb_str_args *args, zb_column **out,
                      zb_error *err);
zb_status zb__cpu_regex(const zb_column *col, const zb_regex_args *args, zb_column **out,
                        zb_table **out_table, zb_error *err);
zb_status zb__cpu_str_cat(const zb_column *a, bool a_scalar, const zb_column *b,
                          bool b_scalar, const char *sep, int64_t sep_len, zb_column **out,
                          zb_error *err);
zb_status zb__cpu_dt_field(const zb_column *col, zb_dt_field field, int64_t offset_s,
                           zb_column **out, zb_error *err);
zb_status zb__cpu_parse_time(const zb_column *col, zb_parse_kind kind, const char *format,
                             zb_parse_info *info, zb_column **out, zb_error *err);
zb_status zb__cpu_clip(const zb_column *col, const zb_scalar *lower, const zb_scalar *upper,
                       zb_column **out, zb_error *err);
zb_status zb__cpu_round(const zb_column *col, int decimals, zb_column **out, zb_error *err);
zb_status zb__cpu_where(const zb_column *cond, bool mask, const zb_column *a,
                        const zb_column *b, bool b_scalar, zb_column **out, zb_error *err);

#endif /* ZAMBEZI_CPU_STRINGS_KERNELS_H */
