/*
 * reshape.h -- the CPU entry points of zambezi/reshape.h (src/cpu/reshape.c),
 * called by the CPU backend's run switch with arguments src/core checked.
 */
#ifndef ZAMBEZI_CPU_RESHAPE_H
#define ZAMBEZI_CPU_RESHAPE_H

#include "core/internal.h"

zb_status zb__cpu_one_hot(const zb_column *codes, int64_t n_codes, zb_table **out,
                          zb_error *err);
zb_status zb__cpu_repeat(const zb_column *col, int64_t times, zb_column **out, zb_error *err);

#endif /* ZAMBEZI_CPU_RESHAPE_H */
