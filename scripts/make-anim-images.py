#!/usr/bin/env python3
"""Makes the animation benchmark inputs (not committed), deterministic.

usage: make-anim-images.py OUTDIR
- small.gif: 200 frames of 480x270, 20 ms each, loops forever
- big.gif: 100 frames of 1920x1080
- small.png: the same content as small.gif as an APNG
- square.gif: 300 frames of 1000x1000 (for the memory target)
Frames are a smooth background with moving discs and a ticking bar, so that GIF and APNG writers
store partial frames, as real animations do.
"""
import math
import os
import sys

from PIL import Image, ImageDraw

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def frames(w, h, n):
    bg = Image.linear_gradient("L").resize((w, h))
    base = Image.merge("RGB", (bg, bg.rotate(90).resize((w, h)), Image.new("L", (w, h), 90)))
    for i in range(n):
        img = base.copy()
        d = ImageDraw.Draw(img)
        for k in range(5):
            a = 2 * math.pi * (i / n) * (k + 1) + k
            x = w / 2 + w * 0.35 * math.cos(a)
            y = h / 2 + h * 0.35 * math.sin(a)
            r = min(w, h) * (0.04 + 0.01 * k)
            d.ellipse((x - r, y - r, x + r, y + r), fill=(40 * k % 255, 200 - 30 * k, 60 + 35 * k))
        d.rectangle((0, h - h // 20, int(w * i / n), h), fill=(250, 250, 250))
        yield img


def save_gif(name, w, h, n):
    path = os.path.join(out, name)
    if os.path.exists(path):
        return
    imgs = [f.quantize(colors=255, method=Image.Quantize.MEDIANCUT) for f in frames(w, h, n)]
    imgs[0].save(path, save_all=True, append_images=imgs[1:], duration=20, loop=0)


def save_apng(name, w, h, n):
    path = os.path.join(out, name)
    if os.path.exists(path):
        return
    imgs = list(frames(w, h, n))
    imgs[0].save(path, save_all=True, append_images=imgs[1:], duration=20, loop=0, compress_level=6)


save_gif("small.gif", 480, 270, 200)
save_apng("small.png", 480, 270, 200)
save_gif("big.gif", 1920, 1080, 100)
save_gif("square.gif", 1000, 1000, 300)
print(out)
