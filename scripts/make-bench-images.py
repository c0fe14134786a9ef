#!/usr/bin/env python3
"""Makes the benchmark inputs (not committed): photo-like and screenshot-like 4096x4096 RGBA PNGs.

usage: make-bench-images.py OUTDIR [SIZE]
- photo.png: smooth multi-octave colour fields plus fine sensor-like noise, with an alpha channel
  that varies gently (so every tool really handles RGBA).
- screenshot.png: flat UI panels, borders and lines of text, opaque alpha channel stored as RGBA.
Deterministic (fixed seed).
"""
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

out = sys.argv[1]
size = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(1234)


def field(octaves):
    acc = np.zeros((size, size), np.float32)
    for cells, weight in octaves:
        small = rng.random((cells, cells)).astype(np.float32)
        img = Image.fromarray((small * 255).astype(np.uint8)).resize((size, size), Image.BICUBIC)
        acc += weight * np.asarray(img, np.float32)
    return acc / sum(w for _, w in octaves)


path = os.path.join(out, "photo.png")
if not os.path.exists(path):
    octs = [(4, 4), (16, 2), (64, 1), (256, 0.5)]
    chans = [field(octs) + rng.normal(0, 3, (size, size)) for _ in range(3)]
    alpha = 200 + field([(4, 1)]) * 55 / 255
    rgba = np.stack(chans + [alpha], axis=-1).clip(0, 255).astype(np.uint8)
    Image.fromarray(rgba, "RGBA").save(path, compress_level=1)

path = os.path.join(out, "screenshot.png")
if not os.path.exists(path):
    img = Image.new("RGBA", (size, size), (246, 246, 248, 255))
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default()
    words = "the quick brown fox jumps over lazy dogs 0123456789 imgtool render merge frames".split()
    y = 0
    while y < size:
        h = int(rng.integers(200, 600))
        d.rectangle((0, y, size, y + 40), fill=(40, 44, 52, 255))
        d.rectangle((20, y + 60, size // 4, y + h - 20), fill=(230, 232, 236, 255), outline=(200, 200, 210, 255))
        for ty in range(y + 70, y + h - 30, 16):
            for tx in (40, size // 4 + 40, size // 2 + 40):
                line = " ".join(words[int(i)] for i in rng.integers(0, len(words), 8))
                d.text((tx, ty), line, fill=(20, 20, 20, 255), font=font)
        d.rectangle((size - 300, y + 80, size - 60, y + 120), fill=(30, 120, 230, 255))
        y += h
    img.save(path, compress_level=1)
print(out)
