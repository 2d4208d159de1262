/*
 * scs4onnx/version.h: the version of the headers, from meson's
 * project(version:) (made by configure_file). scs_version() gives the
 * library's at run time.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS4ONNX_VERSION_H
#define SCS4ONNX_VERSION_H

#define SCS_VERSION "1.3.0"
#define SCS_VERSION_MAJOR 1
#define SCS_VERSION_MINOR 3
#define SCS_VERSION_PATCH 0

#endif
