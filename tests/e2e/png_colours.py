#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Count the pixels of given colours in a PNG, for the inspect suite's check
of the treemap in a headless browser's screenshot (no imaging library: the
PNG is inflated with zlib and unfiltered here).

Usage:
    /usr/bin/python3 png_colours.py SHOT.png RRGGBB ...

Prints one JSON object: {"width": W, "height": H, "counts": {"RRGGBB": N,
...}}, a pixel counting for a colour when each channel is within 3 of it.
Takes 8-bit RGB or RGBA images, not interlaced.
"""

import json
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("%s: not a PNG" % path)
    pos, idat, head = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, ctype, _, _, interlace = head
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise SystemExit("%s: depth %d, colour type %d, interlace %d: not read here" % (path, depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def count(rows, width, bpp, colours):
    """The pixels of each colour (hex RRGGBB) of @colours, each channel within 3."""
    want = [tuple(int(h[i:i + 2], 16) for i in (0, 2, 4)) for h in colours]
    counts = [0] * len(want)
    for row in rows:
        for x in range(0, width * bpp, bpp):
            px = row[x:x + 3]
            for k, c in enumerate(want):
                if abs(px[0] - c[0]) <= 3 and abs(px[1] - c[1]) <= 3 and abs(px[2] - c[2]) <= 3:
                    counts[k] += 1
                    break
    return counts


def main():
    width, height, bpp, rows = read_png(sys.argv[1])
    counts = count(rows, width, bpp, sys.argv[2:])
    print(json.dumps({"width": width, "height": height,
                      "counts": {h.lower(): n for h, n in zip(sys.argv[2:], counts)}}))


if __name__ == "__main__":
    main()
