#!/usr/bin/env python3
"""scripts/bench webp: WebP decoding and writing, imgtool against its peers in one run.

Decoding: an animated WebP of 200 frames at 480x270 and one of 100 frames at 1920x1080 (made once
from the animation benchmark's GIFs by gif2webp, lossy at quality 75 and lossless), every frame
decoded and composited: imgtool (`info --verify`, on every core and pinned to one), libwebp's own
WebPAnimDecoder loop in C (Benchmarks/webp-loop, one core), libvips (`n=-1`) and Pillow. imgtool's
frame hashes are checked against Pillow's (both composite with libwebp's rules).

Writing: the benchmark GIFs converted to animated WebP, lossless and at quality 75: `imgtool
convert` (libwebp method 4, as cwebp and gif2webp; and `--level 0`, method 0, Pillow's default), gif2webp, img2webp (from PNG frames exploded beforehand, not timed),
ffmpeg's libwebp_anim encoder and Pillow. Prints each output's size, and whether it decodes
(with Pillow) to the GIF's frames: "exact", or the largest sample difference.
Wall times on a shared machine vary with its load, so each row also gives the CPU time (user +
system, mean of a run). With --busy, every tool (imgtool and the peers) runs while a spinning
process keeps one core busy.
usage: scripts/bench webp [--trials N] [--only decode|write] [--busy]
"""
import argparse
import hashlib
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
parser.add_argument("--only", choices=["decode", "write"])
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("webp", "libvips-tools", "ffmpeg", "time", "libwebp-dev")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
imgtool = b.build_release()
loop = b.build_c("webp_loop", "Benchmarks/webp-loop/webp_loop.c", ["-lwebpdemux", "-lwebp"])
data = b.anim_inputs()
work = b.work_folder("webp")
py = sys.executable
pin = ["taskset", "-c", "0"]

PILLOW_DECODE = ("import sys; from PIL import Image, ImageSequence; im = Image.open(sys.argv[1]); "
                 "print(sum(1 for f in ImageSequence.Iterator(im) if f.convert('RGBA').load() is not None))")


def pillow_frames(path):
    import numpy as np
    from PIL import Image, ImageSequence
    return [np.asarray(f.convert("RGBA"), np.int16) for f in ImageSequence.Iterator(Image.open(path))]


def digest(frame):
    import numpy as np
    rgba = frame.astype(np.uint8).copy()
    rgba[rgba[:, :, 3] == 0] = 0
    return hashlib.sha256(rgba.tobytes()).hexdigest()


def imgtool_hashes(path):
    out = subprocess.run([imgtool, "info", "--hash", path], capture_output=True, text=True, check=True).stdout
    return [line.split()[-1] for line in out.splitlines() if "rgba8 sha256" in line]


def measure(cmd, trials, warmup=1):
    """(median wall seconds, mean CPU seconds of a run): `warmup` + `trials` runs."""
    return b.measure_with_cpu(cmd, trials=trials, warmup=warmup)


def row(label, cmd, frames, base, counter=None):
    med, cpu = measure(cmd, args.trials)
    note = ""
    if counter:
        counted = subprocess.run(counter, capture_output=True, text=True).stdout.split()
        if not counted or counted[0] != str(frames):
            note = f" (decodes {counted[0] if counted else '?'} of {frames} frames)"
    mem = b.peak_memory_mib(cmd)
    return med, [label + note, f"{med * 1000:.0f} ms", f"{cpu * 1000:.0f} ms", f"{frames / med:.0f}",
                 f"{med / base:.2f}x" if base else "1.00x", f"{mem:.0f} MiB"]


b.keep_core_busy(args.busy)
print(f"# WebP benchmark ({b.machine()}; {args.trials} trials, median wall, mean CPU{b.mode_note(args.busy)})\n")

# --- Decoding -------------------------------------------------------------------------------------
for gif, frames in [("small.gif", 200), ("big.gif", 100)] if args.only != "write" else []:
    for kind, flags in [("lossy", ["-lossy", "-q", "75"]), ("lossless", [])]:
        path = os.path.join(work, f"{gif[:-4]}-{kind}.webp")
        if not os.path.exists(path):
            b.sh(["gif2webp", "-quiet", *flags, os.path.join(data, gif), "-o", path])
        ours = imgtool_hashes(path)
        reference = [digest(f) for f in pillow_frames(path)]
        check = "imgtool's frames equal Pillow's" if ours == reference else \
            f"MISMATCH: {sum(a != c for a, c in zip(ours, reference))} frames differ from Pillow's ({len(ours)} vs {len(reference)})"
        tools = [
            ("imgtool (2 cores)", [imgtool, "info", "--verify", path], None),
            ("imgtool (1 core)", pin + [imgtool, "info", "--verify", path], None),
            ("libwebp WebPAnimDecoder loop in C (1 core)", pin + [loop, path, "copy"], None),
            ("vips (n=-1)", ["vips", "avg", f"{path}[n=-1]"], ["vipsheader", "-f", "n-pages", path]),
            ("Pillow", [py, "-c", PILLOW_DECODE, path], [py, "-c", PILLOW_DECODE, path]),
        ]
        rows, base = [], None
        for label, cmd, counter in tools:
            med, cells = row(label, cmd, frames, base, counter)
            base = base or med
            rows.append(cells)
        size = os.path.getsize(path) // 1024
        print(f"## {os.path.basename(path)} ({frames} frames, {size} KiB, by gif2webp): decode + compose every frame\n")
        print(b.table(["tool", "median", "CPU", "frames/s", "vs imgtool", "peak memory"], rows) + "\n")
        print(f"Check: {check}.\n")

# --- Writing --------------------------------------------------------------------------------------
def verdict(reference, path):
    try:
        got = pillow_frames(path)
    except Exception as error:  # noqa: BLE001 - a peer's output Pillow cannot read
        return f"unreadable ({error})"
    if len(got) != len(reference):
        return f"{len(got)} of {len(reference)} frames"
    worst = max(int(abs(a - c).max()) for a, c in zip(got, reference))
    return "exact" if worst == 0 else f"max difference {worst}"


PILLOW_SAVE = ("import sys; from PIL import Image; im = Image.open(sys.argv[1]); "
               "im.save(sys.argv[2], save_all=True, loop=im.info.get('loop', 0), {})")
for gif, frames in [("small.gif", 200), ("big.gif", 100)] if args.only != "decode" else []:
    source = os.path.join(data, gif)
    reference = pillow_frames(source)
    exploded = os.path.join(work, gif[:-4] + "-frames")
    if not os.path.isdir(exploded):
        os.makedirs(exploded)
        b.sh([imgtool, "frames", source, "-o", exploded], stdout=subprocess.DEVNULL)
    pngs = sorted(os.path.join(exploded, name) for name in os.listdir(exploded) if name.endswith(".png"))
    delay = "20"
    for kind in ["lossless", "lossy"]:
        lossless = kind == "lossless"
        out = lambda name: os.path.join(work, f"{gif[:-4]}-{name}-{kind}.webp")  # noqa: E731
        tools = [
            ("imgtool convert", [imgtool, "convert", "--force", "--lossless" if lossless else "--no-lossless",
                                 "--quality", "75", source, out("imgtool")]),
            ("gif2webp", ["gif2webp", "-quiet", *([] if lossless else ["-lossy"]), "-q", "75", source,
                          "-o", out("gif2webp")]),
            ("img2webp (PNG frames)", ["img2webp", "-loop", "0", "-d", delay,
                                       "-lossless" if lossless else "-lossy", "-q", "75", *pngs,
                                       "-o", out("img2webp")]),
            ("ffmpeg libwebp_anim", ["ffmpeg", "-v", "error", "-y", "-i", source, "-c:v", "libwebp_anim",
                                     "-lossless", "1" if lossless else "0", "-quality", "75", "-loop", "0",
                                     out("ffmpeg")]),
            # Pillow's default method is 0 (fastest, larger files); method 4 is everyone else's.
            ("Pillow (method 4)", [py, "-c", PILLOW_SAVE.format(("lossless=True" if lossless else "quality=75")
                                                                 + ", method=4"), source, out("pillow")]),
            ("Pillow (its default, method 0)", [py, "-c", PILLOW_SAVE.format("lossless=True" if lossless
                                                                             else "quality=75"), source,
                                                out("pillow-m0")]),
            # The same effort as Pillow's default: libwebp method 0.
            ("imgtool convert --level 0", [imgtool, "convert", "--force", "--level", "0",
                                           "--lossless" if lossless else "--no-lossless", "--quality", "75",
                                           source, out("imgtool-m0")]),
        ]
        rows, base = [], None
        for label, cmd in tools:  # the output path is each command's last argument
            try:
                med, cpu = measure(cmd, max(1, args.trials - 1), warmup=0)
            except subprocess.CalledProcessError:
                rows.append([label, "failed", "", "", "", ""])
                continue
            base = base or med
            path = cmd[-1]
            rows.append([label, f"{med * 1000:.0f} ms", f"{cpu * 1000:.0f} ms", f"{med / base:.2f}x",
                         f"{os.path.getsize(path):,} B", verdict(reference, path)])
        print(f"## {gif} ({frames} frames) to animated WebP, {kind}{'' if lossless else ' quality 75'}\n")
        print(b.table(["tool", "median", "CPU", "vs imgtool", "size", "frames (Pillow) vs the GIF"], rows) + "\n")
