/*
 * scs4onnx.h: the public API (include/scs4onnx/scs4onnx.h) as the project's
 * own code sees it: with the internal halves of err.h and report.h, which
 * include the public headers and never the other way round.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_SCS4ONNX_H
#define SCS_SCS4ONNX_H

#include <scs4onnx/scs4onnx.h>

#include "err.h"
#include "report.h"

#endif
