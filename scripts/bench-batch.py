#!/usr/bin/env python3
"""scripts/bench batch: many small jobs in one go. `imgtool batch` against the same work done by
GNU parallel running one `imgtool` process per file, `parallel vips composite2` (watermarks) /
`parallel vips copy` (conversions), and a Pillow script with a process pool, all on every core.

Workloads: 1000 watermark jobs (a 512x512 photo-like PNG each, one shared 96x96 RGBA logo at the
bottom right) and 200 GIF conversions (96x96, 24 frames) to PNG/APNG. Prints median wall time,
ratio to imgtool batch, CPU time (user + system of the whole process tree, mean of a run) and
peak memory, and checks that imgtool's watermarked pixels equal Pillow's (exact source-over,
within 1 per sample). With --busy, every tool (imgtool and the peers) runs while a spinning
process keeps one core busy.
usage: scripts/bench batch [--trials N] [--count N] [--busy]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
parser.add_argument("--count", type=int, default=1000)
parser.add_argument("--gifs", type=int, default=200)
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("parallel", "libvips-tools", "time")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
imgtool = b.build_release()
work = b.work_folder("batch")
cores = os.cpu_count() or 2

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

photos = os.path.join(work, "photos")
gifs = os.path.join(work, "gifs")
logo = os.path.join(work, "logo.png")
if not os.path.exists(os.path.join(photos, f"{args.count - 1:04}.png")):
    os.makedirs(photos, exist_ok=True)
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:512, 0:512]
    for i in range(args.count):
        base = np.stack([(x + i) % 256, (y * 2 + i) % 256, ((x + y) // 2 + 3 * i) % 256], -1).astype(np.int16)
        noisy = np.clip(base + rng.integers(-12, 13, base.shape), 0, 255).astype(np.uint8)
        Image.fromarray(noisy, "RGB").save(os.path.join(photos, f"{i:04}.png"), compress_level=1)
    yy, xx = np.mgrid[0:96, 0:96]
    alpha = np.clip(255 - np.hypot(xx - 48, yy - 48) * 5, 0, 255).astype(np.uint8)
    rgba = np.stack([np.full_like(alpha, 240), np.full_like(alpha, 200), np.full_like(alpha, 40), alpha], -1)
    Image.fromarray(rgba, "RGBA").save(logo)
if not os.path.exists(os.path.join(gifs, f"{args.gifs - 1:03}.gif")):
    os.makedirs(gifs, exist_ok=True)
    for i in range(args.gifs):
        frames = []
        for f in range(24):
            im = Image.new("P", (96, 96), 0)
            im.putpalette([0, 0, 0, 255, 80, 0, 0, 120, 255] + [i % 256, 0, 0] * 253)
            for yy2 in range(20):
                for xx2 in range(20):
                    im.putpixel(((f * 3 + xx2) % 96, (i + yy2) % 96), 1 + (f % 2))
            frames.append(im)
        frames[0].save(os.path.join(gifs, f"{i:03}.gif"), save_all=True, append_images=frames[1:], duration=40, loop=0)

names = sorted(os.listdir(photos))[: args.count]
gif_names = sorted(os.listdir(gifs))[: args.gifs]


def fresh(name):
    folder = os.path.join(work, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    return folder


# imgtool batch job files
marks_jobs = os.path.join(work, "marks.ndjson")
convert_jobs = os.path.join(work, "converts.ndjson")
with open(marks_jobs, "w") as f:
    for n in names:
        f.write(json.dumps({"id": n, "args": ["merge", os.path.join(photos, n), logo, "-o",
                                              os.path.join(work, "out-imgtool", n), "--gravity", "southeast"]}) + "\n")
with open(convert_jobs, "w") as f:
    for n in gif_names:
        f.write(json.dumps({"id": n, "args": ["convert", os.path.join(gifs, n),
                                              os.path.join(work, "conv-imgtool", n[:-4] + ".png")]}) + "\n")

PILLOW = r'''
import os, sys
from multiprocessing import Pool
from PIL import Image
mode, src, dst, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
names = sorted(os.listdir(src))[:int(sys.argv[5])]
def mark(n):
    base = Image.open(os.path.join(src, n)).convert("RGBA")
    logo = Image.open(extra)
    base.alpha_composite(logo, (base.width - logo.width, base.height - logo.height))
    base.convert("RGB").save(os.path.join(dst, n))
def conv(n):
    im = Image.open(os.path.join(src, n))
    im.save(os.path.join(dst, n[:-4] + ".png"), save_all=True, loop=im.info.get("loop", 0))
with Pool(os.cpu_count()) as pool:
    pool.map(mark if mode == "mark" else conv, names, chunksize=8)
'''
pillow_script = os.path.join(work, "pillow_batch.py")
with open(pillow_script, "w") as f:
    f.write(PILLOW)

list_marks = os.path.join(work, "marks.txt")
with open(list_marks, "w") as f:
    f.write("\n".join(os.path.join(photos, n) for n in names) + "\n")
list_gifs = os.path.join(work, "gifs.txt")
with open(list_gifs, "w") as f:
    f.write("\n".join(os.path.join(gifs, n) for n in gif_names) + "\n")

b.keep_core_busy(args.busy)  # after making the inputs
rows = []
for label, jobs_file, listing, count, per_file, vips_cmd, mode, src, extra in [
    (f"{args.count} watermarks (512x512 PNG + shared logo)", marks_jobs, list_marks, args.count,
     f"{imgtool} merge {{}} {logo} -o {work}/out-parallel/{{/}} --gravity southeast --force",
     f"vips composite2 {{}} {logo} {work}/out-vips/{{/}} over --x 416 --y 416", "mark", photos, logo),
    (f"{args.gifs} GIF conversions (96x96, 24 frames) to APNG", convert_jobs, list_gifs, args.gifs,
     f"{imgtool} convert {{}} {work}/conv-parallel/{{/.}}.png --force",
     f"vips copy {{}}[n=-1] {work}/conv-vips/{{/.}}.png", "conv", gifs, "-"),
]:
    out_names = ["out-imgtool", "out-parallel", "out-vips", "out-pillow"] if mode == "mark" else \
        ["conv-imgtool", "conv-parallel", "conv-vips", "conv-pillow"]
    for name in out_names:
        fresh(name)
    tools = [
        ("imgtool batch", f"{imgtool} batch {jobs_file} --redo > /dev/null"),
        ("parallel imgtool (a process per file)", f"parallel -j{cores} {per_file} < {listing}"),
        ("parallel vips", f"parallel -j{cores} {vips_cmd} < {listing}"),
        ("Pillow process pool", f"{sys.executable} {pillow_script} {mode} {src} {work}/{out_names[3]} {extra} {count}"),
    ]
    results = []
    for tool, cmd in tools:
        median, low, high, cpu = b.timed(cmd, trials=args.trials, warmup=1)
        peak = b.peak_memory_mib(cmd)
        results.append((tool, median, low, high, cpu, peak))
    base = results[0][1]
    for tool, median, low, high, cpu, peak in results:
        rows.append([label, tool, f"{median:.2f} s ({low:.2f}-{high:.2f})", f"{median / base:.2f}x", f"{cpu:.2f} s",
                     f"{peak:.0f} MiB"])
    if mode == "mark":
        ours = np.asarray(Image.open(os.path.join(work, "out-imgtool", names[0])).convert("RGB"), np.int16)
        theirs = np.asarray(Image.open(os.path.join(work, "out-pillow", names[0])).convert("RGB"), np.int16)
        print(f"watermark check: max difference imgtool vs Pillow {int(np.abs(ours - theirs).max())}")

print(f"\nscripts/bench batch on {b.machine()}, {args.trials} trials, median (min-max), mean CPU (user + system) "
      f"and peak memory of one run{b.mode_note(args.busy)}\n")
print(b.table(["workload", "tool", "wall time", "vs imgtool batch", "CPU", "peak memory"], rows))
