#!/usr/bin/env python3
"""Counts differing pixels between two PNG screenshots (8-bit RGB/RGBA, non-interlaced, as
Chromium writes them). Prints: differing-pixels total-pixels. Pure standard library."""
import struct, sys, zlib

def read_png(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', path
    pos, idat, w = 8, b'', None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            assert depth == 8 and interlace == 0 and ctype in (2, 6), (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line)); prev = line
    return w, h, bpp, rows

def main():
    w1, h1, b1, r1 = read_png(sys.argv[1])
    w2, h2, b2, r2 = read_png(sys.argv[2])
    if (w1, h1) != (w2, h2):
        print(w1 * h1, w1 * h1); return
    diff = 0
    for y in range(h1):
        if r1[y] == r2[y] and b1 == b2: continue
        for x in range(w1):
            if r1[y][x*b1:x*b1+3] != r2[y][x*b2:x*b2+3]: diff += 1
    print(diff, w1 * h1)

main()
