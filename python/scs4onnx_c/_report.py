# SPDX-License-Identifier: MIT
"""The tools' summary (scs4onnx's INFO lines), made from the JSON report."""


def _items(lines, title, items, name_key, detail_key):
    for it in items or ():
        lines.append('INFO: %s: %s: %s' % (title, it[name_key], it[detail_key]))


def _dedup(r, lines):
    lines.append('INFO: constants studied: %d (scalars left alone: %d)' % (r['constants'], r['scalars']))
    for g in r['groups']:
        lines.append('INFO: merged: %s <- %s (%s, %d bytes each%s)' % (
            g['canonical'], ', '.join(g['merged']), g['dtype'], g['bytes'],
            ', lifted to the enclosing graph' if g['lifted'] else ''))
    lines.append('INFO: groups merged: %d' % len(r['groups']))
    _items(lines, 'not merged', r['not_merged'], 'name', 'reason')
    _items(lines, 'narrowed', r['narrowed'], 'name', 'change')
    _items(lines, 'not narrowed', r['not_narrowed'], 'name', 'reason')


def format_report(report, optimize_only=False):
    """The summary the tools print for @report (a dict from shrinking's run,
    split, merge, big or optimize), one 'INFO: ' line each, as one string.
    optimize_only: the report is optimize()'s (no dedup lines)."""
    r = report
    lines = []
    opt = r.get('optimize')
    if opt is not None:
        _items(lines, 'optimized', opt['changes'], 'pass', 'change')
        _items(lines, 'not optimized', opt['left'], 'pass', 'reason')
        lines.append('INFO: passes:' + ','.join(' ' + p['name'] for p in opt['passes']))
        for p in opt['passes']:
            if p['changes'] or p['left']:
                lines.append('INFO: pass %s: %d changes, %d left alone' % (p['name'], p['changes'], p['left']))
        lines.append('INFO: nodes: %d -> %d (%d rounds)' % (opt['nodes_before'], opt['nodes_after'], opt['rounds']))
    if not optimize_only:
        _dedup(r, lines)
    _items(lines, 'exported', r['npy'], 'name', 'path')
    _items(lines, 'npy name made unique', r['npy_renamed'], 'name', 'reason')
    _items(lines, 'not exported', r['not_exported'], 'name', 'reason')
    if r['n_shards']:
        lines.append('INFO: shards: %d' % r['n_shards'])
    _items(lines, 'shard', r['shards'], 'name', 'bytes')
    for s in r['stages']:
        lines.append('INFO: stage %s: %.2f s%s' % (s['name'], s['seconds'],
                                                   ', %d bytes' % s['bytes'] if s['bytes'] else ''))
    before, after = r['constant_bytes_before'], r['constant_bytes_after']
    lines.append('INFO: constant bytes: %d -> %d (%.1f%%)' % (before, after,
                                                             100.0 * after / before if before > 0 else 100.0))
    lines.append('INFO: file bytes: %d -> %d%s' % (r['input_bytes'], r['output_bytes'] + r['output_data_bytes'],
                                                  ' (with external data)' if r['external_data'] else ''))
    lines.append('INFO: finished in %.2f s' % r['seconds'])
    return '\n'.join(lines) + '\n'
