/*
 * half.c: float16 and bfloat16 conversions (see half.h): from float as
 * the F16C instruction rounds (used when the host has it), from double
 * in one rounding.
 *
 * SPDX-License-Identifier: MIT
 */
#include "util/half.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>

/* The F16C instruction rounds as the code below does (to nearest even,
 * NaNs made quiet keeping the top of their payload): the same bits for
 * every float, checked exhaustively, in one instruction. GCC only: clang's
 * __builtin_cpu_supports() does not know "f16c" (the fuzz build is clang's). */
__attribute__((target("f16c"))) static uint16_t
half_f16c(float f)
{
	return (uint16_t)_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
}
#endif

/* ---- from and to float ---- */

float
scs_half_to_float(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	uint32_t bits;
	float v;

	if (e == 0x1f) {
		bits = (uint32_t)(h & 0x8000) << 16 | 0x7f800000u | (uint32_t)m << 13;
		memcpy(&v, &bits, 4);
		return v;
	}
	v = e == 0 ? ldexpf((float)m, -24) : ldexpf((float)(m | 0x400), e - 25);
	return (h & 0x8000) ? -v : v;
}

uint16_t
scs_half_from_float(float f)
{
	uint32_t x, ax, sign, r, rem;
	float a;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
	if (__builtin_cpu_supports("f16c"))
		return half_f16c(f);
#endif

	memcpy(&x, &f, 4);
	sign = (x >> 16) & 0x8000;
	ax = x & 0x7fffffffu;
	if (ax > 0x7f800000u)
		return (uint16_t)(sign | 0x7e00 | ((ax >> 13) & 0x3ff));
	if (ax >= 0x477ff000u)                   /* 65520 and up round to infinity */
		return (uint16_t)(sign | 0x7c00);
	if (ax < 0x38800000u) {                  /* under 2^-14: a subnormal half (or the smallest normal) */
		memcpy(&a, &ax, 4);
		return (uint16_t)(sign | (uint32_t)rintf(a * 16777216.0f));
	}
	r = (ax >> 13) - (112u << 10);
	rem = ax & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (r & 1)))
		r++;
	return (uint16_t)(sign | r);
}

float
scs_bf16_to_float(uint16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float v;

	memcpy(&v, &bits, 4);
	return v;
}

uint16_t
scs_bf16_from_float(float f)
{
	uint32_t x;

	memcpy(&x, &f, 4);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40);
	x += 0x7fffu + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

/* ---- from double ---- */

/*
 * @v rounded once to the binary format with @mant fraction bits and @expo
 * exponent bits (IEEE layout, sign on top): round to nearest, ties to even,
 * subnormals kept, overflow to infinity.
 */
static uint32_t
round_bits(double v, int mant, int expo)
{
	uint32_t sign = signbit(v) ? (uint32_t)1 << (mant + expo) : 0, all = ((uint32_t)1 << expo) - 1;
	int bias = (1 << (expo - 1)) - 1, emin = 1 - bias, e;
	double a = fabs(v), n;

	if (isnan(v))
		return sign | all << mant | (uint32_t)1 << (mant - 1);
	if (isinf(v))
		return sign | all << mant;
	if (a == 0)
		return sign;
	frexp(a, &e);
	e -= 1;                                  /* a = 1.f * 2^e */
	if (e < emin)
		e = emin;                            /* subnormal: the quantum of the smallest exponent */
	n = rint(ldexp(a, mant - e));            /* exact scaling, then the one rounding */
	if (n >= ldexp(1.0, mant + 1)) {         /* rounded up into the next binade */
		n = ldexp(n, -1);
		e++;
	}
	if (e > bias)
		return sign | all << mant;
	if (n < ldexp(1.0, mant))
		return sign | (uint32_t)n;           /* subnormal (only at emin) */
	return sign | (uint32_t)(e + bias) << mant | ((uint32_t)n - ((uint32_t)1 << mant));
}

uint16_t
scs_half_from_double(double v)
{
	return (uint16_t)round_bits(v, 10, 5);
}

uint16_t
scs_bf16_from_double(double v)
{
	return (uint16_t)round_bits(v, 7, 8);
}
