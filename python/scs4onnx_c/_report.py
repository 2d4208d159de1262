# SPDX-License-Identifier: MIT
"""The tools' summary (scs4onnx's INFO lines) of a report."""


def format_report(report):
    """The summary the tools print for @report (a dict returned by shrink,
    split, merge, big or optimize, or carried by an Error), one 'INFO: ' line
    each, as one string: the library's own text, report['summary']."""
    return report.get('summary', '')
