#!/usr/bin/env python3
"""The icons of `yahtzee serve`'s page (crates/serve/src/assets/): a die showing five on the
page's blue, as PNG (192 and 512 px, for the web app manifest) and favicon.ico (a 32 px PNG
inside). Python's standard library only; run from the repository root to write them again."""
import struct
import zlib
from pathlib import Path

BLUE = (31, 95, 191)
WHITE = (255, 255, 255)
OUT = Path("crates/serve/src/assets")


def pixel(x, y, n):
    """The colour at (x, y) of an n-pixel icon: a rounded square, five pips."""
    u, v = (x + 0.5) / n, (y + 0.5) / n
    r = 0.18  # corner radius, as a fraction of the side
    cx, cy = min(max(u, r), 1 - r), min(max(v, r), 1 - r)
    if (u - cx) ** 2 + (v - cy) ** 2 > r * r:
        return None  # outside the rounded corner: transparent
    for px, py in [(0.28, 0.28), (0.72, 0.28), (0.5, 0.5), (0.28, 0.72), (0.72, 0.72)]:
        if (u - px) ** 2 + (v - py) ** 2 <= 0.095 ** 2:
            return WHITE
    return BLUE


def png(n):
    rows = bytearray()
    for y in range(n):
        rows.append(0)
        for x in range(n):
            c = pixel(x, y, n)
            rows.extend(c + (255,) if c else (0, 0, 0, 0))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", n, n, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))


def ico(image, n):
    header = struct.pack("<HHH", 0, 1, 1)
    entry = struct.pack("<BBBBHHII", n, n, 0, 0, 1, 32, len(image), 6 + 16)
    return header + entry + image


if __name__ == "__main__":
    (OUT / "icon-192.png").write_bytes(png(192))
    (OUT / "icon-512.png").write_bytes(png(512))
    (OUT / "favicon.ico").write_bytes(ico(png(32), 32))
