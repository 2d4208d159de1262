/*
 * half.h: float16 and bfloat16 to and from float and double, bit exact:
 * one converter for the whole library.
 *
 * Two roundings to the narrow types, on purpose:
 * - from a float (scs_half_from_float, scs_bf16_from_float): what ONNX
 *   Runtime's kernels compute in float and store narrow; a NaN stays a
 *   quiet NaN keeping the top of its payload (the F16C instruction's
 *   result). Used by the evaluator.
 * - from a double (scs_half_from_double, scs_bf16_from_double): one
 *   rounding of an exact double (a folded weight computed in double), no
 *   detour through float; a NaN becomes the one quiet NaN of its sign.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_HALF_H
#define SCS_HALF_H

#include <stdint.h>

/* float16 and bfloat16 bits widened to float: exact. */
float scs_half_to_float(uint16_t h);
float scs_bf16_to_float(uint16_t h);

/* @f rounded to float16 or bfloat16 bits: to nearest even, NaN payload's top kept. */
uint16_t scs_half_from_float(float f);
uint16_t scs_bf16_from_float(float f);

/* @v rounded once to float16 or bfloat16 bits: to nearest even, subnormals kept, overflow to infinity. */
uint16_t scs_half_from_double(double v);
uint16_t scs_bf16_from_double(double v);

#endif
