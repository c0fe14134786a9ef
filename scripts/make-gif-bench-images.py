#!/usr/bin/env python3
"""Makes the GIF-writer benchmark clips (not committed), deterministic, as lossless sources.

usage: make-gif-bench-images.py OUTDIR
Each clip NAME gets OUTDIR/NAME/f000.png ... (RGBA or RGB frames), OUTDIR/NAME.png (the same
frames as an APNG), OUTDIR/NAME.webp (lossless animated WebP, for vips) and OUTDIR/NAME.json
(frame count, delay in ms, size).
- video: 480x270, 48 frames of 40 ms: a camera pan and zoom over a photo-like picture (smooth
  shading, texture, grain) with a moving subject: every pixel changes, thousands of colours.
- screencast: 800x600, 60 frames of 100 ms: flat UI colours, anti-aliased text, a cursor and a
  list that scrolls once: mostly static, a few hundred colours.
- sprite: 256x256 RGBA, 36 frames of 50 ms: a rotating shaded shape with anti-aliased alpha edges
  on a transparent background.
- sticker: 1280x720, 30 frames of 60 ms: a still photo-like background with a small animated
  sticker (anti-aliased, shaded) moving over it, as `imgtool merge photo.jpg sticker.gif` makes.
"""
import json
import math
import os
import subprocess
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)


def photo(w, h, seed):
    """A photo-like RGB picture: smooth sky/ground shading, soft blobs, texture and grain."""
    r = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    sky = np.stack([90 + 80 * y / h, 140 + 60 * y / h, 220 - 40 * y / h], -1)
    ground = np.stack([70 + 40 * x / w, 110 + 30 * np.sin(x / 37), 50 + 20 * y / h], -1)
    horizon = h * 0.55 + 12 * np.sin(x / 53)
    img = np.where((y > horizon)[..., None], ground, sky)
    for _ in range(14):
        cx, cy, rad = r.uniform(0, w), r.uniform(0, h), r.uniform(0.03, 0.15) * w
        col = r.uniform(30, 240, 3)
        m = np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * rad * rad))[..., None]
        img = img * (1 - 0.7 * m) + col * 0.7 * m
    tex = np.array(Image.fromarray((r.uniform(0, 255, (h // 4 + 1, w // 4 + 1))).astype(np.uint8)).resize(
        (w, h), Image.BICUBIC), np.float32)
    img += (tex[..., None] - 128) * 0.12
    img += r.normal(0, 2.0, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def save(name, frames, delay):
    folder = os.path.join(out, name)
    if os.path.exists(os.path.join(out, name + ".json")):
        return
    os.makedirs(folder, exist_ok=True)
    for i, f in enumerate(frames):
        f.save(os.path.join(folder, "f%03d.png" % i), compress_level=1)
    frames[0].save(os.path.join(out, name + ".png"), save_all=True, append_images=frames[1:], duration=delay,
                   loop=0, compress_level=6, default_image=False)
    cmd = ["img2webp", "-lossless", "-loop", "0"]
    for i in range(len(frames)):
        cmd += ["-d", str(delay), os.path.join(folder, "f%03d.png" % i)]
    subprocess.run(cmd + ["-o", os.path.join(out, name + ".webp")], check=True, capture_output=True)
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump({"frames": len(frames), "delay_ms": delay, "width": frames[0].width,
                   "height": frames[0].height, "mode": frames[0].mode}, f)


def video():
    w, h, n = 480, 270, 48
    big = Image.fromarray(photo(720, 420, 1))
    frames = []
    for i in range(n):
        t = i / n
        zoom = 1 + 0.15 * t
        cw, ch = w / zoom * 1.3, h / zoom * 1.3
        left = 40 + 140 * t
        top = 30 + 40 * math.sin(t * math.pi)
        crop = big.resize((720, 420), Image.BILINEAR).crop((left, top, left + cw, top + ch)).resize((w, h), Image.BICUBIC)
        d = ImageDraw.Draw(crop)
        bx = 60 + 300 * t
        d.ellipse((bx, 150 - 40 * math.sin(t * 6), bx + 70, 220 - 40 * math.sin(t * 6)), fill=(200, 60, 40))
        crop = crop.filter(ImageFilter.GaussianBlur(0.6))
        arr = np.array(crop, np.float32) + np.random.default_rng(100 + i).normal(0, 1.5, (h, w, 3))
        frames.append(Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)))
    save("video", frames, 40)


def screencast():
    w, h, n = 800, 600, 60
    font = ImageFont.load_default(size=15)
    lines = ["def frame_%02d(self):  # render %d" % (k, k * 7) for k in range(80)]
    frames = []
    for i in range(n):
        img = Image.new("RGB", (w, h), (246, 246, 248))
        d = ImageDraw.Draw(img)
        d.rectangle((0, 0, w, 36), fill=(44, 48, 58))
        d.text((14, 9), "imgtool - editor.swift", fill=(230, 230, 235), font=font)
        d.rectangle((0, 36, 180, h), fill=(232, 234, 240))
        for k in range(20):
            d.text((16, 48 + 24 * k), "file_%02d.swift" % k, fill=(60, 60, 70) if k != 4 else (20, 90, 200), font=font)
        scroll = 0 if i < 20 else min((i - 20) * 12, 240)
        for k in range(26):
            line = k + scroll // 24
            yy = 48 + 22 * k - scroll % 24
            d.text((200, yy), "%3d  %s" % (line + 1, lines[line % len(lines)]), fill=(30, 30, 40), font=font)
        if i >= 50:
            d.rectangle((200, 300, 620, 330), fill=(255, 240, 180))
            d.text((210, 306), "Build succeeded", fill=(60, 50, 0), font=font)
        cx, cy = 300 + 6 * i, 500 - 5 * i
        d.polygon([(cx, cy), (cx, cy + 18), (cx + 5, cy + 14), (cx + 12, cy + 14)], fill=(0, 0, 0), outline=(255, 255, 255))
        frames.append(img)
    save("screencast", frames, 100)


def sprite_frame(size, angle, scale=4):
    s = size * scale
    img = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    pts = []
    for k in range(10):
        rad = s * (0.42 if k % 2 == 0 else 0.2)
        a = angle + k * math.pi / 5
        pts.append((s / 2 + rad * math.cos(a), s / 2 + rad * math.sin(a)))
    d.polygon(pts, fill=(255, 200, 40, 255))
    # shading: a radial highlight inside the star
    y, x = np.mgrid[0:s, 0:s].astype(np.float32)
    hl = np.exp(-((x - s * 0.4) ** 2 + (y - s * 0.38) ** 2) / (2 * (s * 0.18) ** 2))
    arr = np.array(img, np.float32)
    arr[..., 0] = np.clip(arr[..., 0] - 60 * (1 - hl), 0, 255)
    arr[..., 1] = np.clip(arr[..., 1] * (0.6 + 0.4 * hl), 0, 255)
    arr[..., 2] = np.clip(arr[..., 2] + 120 * hl, 0, 255)
    img = Image.fromarray(arr.astype(np.uint8))
    return img.resize((size, size), Image.LANCZOS)


def sprite():
    frames = [sprite_frame(256, 2 * math.pi * i / 36 / 5) for i in range(36)]
    save("sprite", frames, 50)


def sticker():
    w, h, n = 1280, 720, 30
    bg = Image.fromarray(photo(w, h, 3))
    frames = []
    for i in range(n):
        img = bg.copy().convert("RGBA")
        st = sprite_frame(160, 2 * math.pi * i / n / 5)
        img.alpha_composite(st, (900 + int(60 * math.sin(i / n * 2 * math.pi)), 80 + 4 * i))
        frames.append(img.convert("RGB"))
    save("sticker", frames, 60)


video()
screencast()
sprite()
sticker()
print(out)
