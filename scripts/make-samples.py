#!/usr/bin/env python3
"""Makes the images in samples/ (run once; the outputs are committed).

Needs Pillow (`pip install pillow`). Every image is drawn here from code, so the project owns it.
- background.png: 320x200 opaque RGB sky gradient with hills (merge background).
- overlay.png: 120x90 RGBA badge with soft, semi-transparent edges (merge overlay).
- spinner.gif: 24-frame 96x96 GIF, 40 ms per frame, loops forever; frames are partial
  rectangles with a transparent index, disposal 2 (restore to background) and 1 (keep).
- bounce.png: 20-frame 128x96 APNG, 50 ms per frame, loops forever; a translucent ball over a
  striped floor, partial frames blended OVER with dispose ops chosen by Pillow's optimiser.
"""
import math
import os

from PIL import Image, ImageDraw, ImageFilter

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples")


def background():
    w, h = 320, 200
    img = Image.new("RGB", (w, h))
    px = img.load()
    for y in range(h):
        for x in range(w):
            t = y / (h - 1)
            px[x, y] = (int(40 + 120 * t), int(110 + 90 * t), int(230 - 60 * t))
    d = ImageDraw.Draw(img)
    for i, (cx, r, col) in enumerate([(60, 110, (70, 140, 60)), (230, 140, (50, 120, 50)), (330, 90, (90, 160, 70))]):
        d.ellipse((cx - r, h - 50 - r // 3, cx + r, h + r), fill=col)
    d.ellipse((250, 20, 290, 60), fill=(255, 230, 120))
    img.save(os.path.join(HERE, "background.png"), optimize=True)


def overlay():
    w, h = 120, 90
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle((8, 8, w - 8, h - 8), radius=18, fill=200)
    mask = mask.filter(ImageFilter.GaussianBlur(3))
    img = Image.new("RGBA", (w, h), (200, 30, 60, 0))
    grad = Image.linear_gradient("L").resize((w, h)).point(lambda v: 60 + v // 2)
    img = Image.merge("RGBA", (grad, Image.new("L", (w, h), 40), Image.new("L", (w, h), 120), mask))
    d = ImageDraw.Draw(img)
    d.ellipse((40, 25, 80, 65), fill=(255, 255, 255, 230))
    d.ellipse((50, 35, 70, 55), fill=(30, 30, 30, 255))
    img.save(os.path.join(HERE, "overlay.png"), optimize=True)


def spinner():
    size, n = 96, 24
    frames = []
    for i in range(n):
        img = Image.new("P", (size, size), 0)
        pal = [0, 0, 0]  # index 0: transparent
        for k in range(1, 256):
            hue = k / 255
            pal += [int(127 + 127 * math.sin(6.283 * hue)), int(127 + 127 * math.sin(6.283 * (hue + 0.33))),
                    int(127 + 127 * math.sin(6.283 * (hue + 0.66)))]
        img.putpalette(pal)
        d = ImageDraw.Draw(img)
        for j in range(8):
            a = 2 * math.pi * (j / 8) + 2 * math.pi * i / n
            x, y = size / 2 + 32 * math.cos(a), size / 2 + 32 * math.sin(a)
            r = 4 + j
            d.ellipse((x - r, y - r, x + r, y + r), fill=1 + (j * 31 + i * 5) % 254)
        frames.append(img)
    frames[0].save(os.path.join(HERE, "spinner.gif"), save_all=True, append_images=frames[1:], duration=40,
                   loop=0, transparency=0, disposal=2, optimize=False)


def bounce():
    w, h, n = 128, 96, 20
    frames = []
    for i in range(n):
        img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        d = ImageDraw.Draw(img)
        for s in range(0, w, 16):
            d.rectangle((s, 80, s + 7, 95), fill=(90, 60, 30, 255))
        t = i / n
        y = 70 - 60 * abs(math.sin(math.pi * t))
        x = 14 + 100 * t
        d.ellipse((x - 12, y - 12, x + 12, y + 12), fill=(30, 120, 230, 170))
        d.ellipse((x - 5, y - 8, x + 1, y - 2), fill=(255, 255, 255, 200))
        frames.append(img)
    frames[0].save(os.path.join(HERE, "bounce.png"), save_all=True, append_images=frames[1:], duration=50,
                   loop=0, default_image=False)


if __name__ == "__main__":
    os.makedirs(HERE, exist_ok=True)
    background()
    overlay()
    spinner()
    bounce()
