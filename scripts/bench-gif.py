#!/usr/bin/env python3
"""scripts/bench gif: writing GIFs, imgtool against ffmpeg (palettegen/paletteuse, with defaults and
with stats_mode=diff + bayer + diff_mode=rectangle), ImageMagick (-layers Optimize), vips, gifsicle
-O3 (on ffmpeg's output) and Pillow (save_all), whole process, in one run, on the same lossless
source frames (scripts/make-gif-bench-images.py: a video-like clip, a screencast, an RGBA sprite
with anti-aliased edges, a sticker merged onto a 1280x720 photo).

For every output: bytes, median wall time, CPU time (user + system, mean of a run), and quality
against the source frames at the same instants (the output frame showing at each source frame's
start time): butteraugli (max-norm score) and ssimulacra, mean and worst of sampled frames (RGBA
frames are flattened onto grey first), and flicker: the share of pixels that are static in the
source between two consecutive frames but change in the output. Targets: no peer of equal or better quality (mean butteraugli
within 0.05 of imgtool's, or better) writes a smaller file, and imgtool is faster than every peer.
With --busy, every tool (imgtool and the peers) runs while a spinning process keeps one core busy.

imgtool writes with `imgtool convert IN OUT.gif` (release build).
usage: scripts/bench gif [--trials N] [--samples K] [--clips video,screencast,sprite,sticker] [--busy]
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
parser.add_argument("--samples", type=int, default=5, help="frames per clip scored by butteraugli/ssimulacra")
parser.add_argument("--clips", default="video,screencast,sprite,sticker")
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("ffmpeg", "imagemagick", "libvips-tools", "gifsicle", "webp", "libjxl-devtools", "time")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

data = os.path.join(b.WORK, "gif")
b.sh([sys.executable, os.path.join(b.ROOT, "scripts/make-gif-bench-images.py"), data], stdout=subprocess.DEVNULL)
work = b.work_folder("gif-out")


imgtool = b.build_release()

PILLOW = ("import sys, glob; from PIL import Image; fs = [Image.open(p) for p in sorted(glob.glob(sys.argv[1] + '/f*.png'))]; "
          "fs[0].save(sys.argv[2], save_all=True, append_images=fs[1:], duration=int(sys.argv[3]), loop=0)")


def tools(clip, meta):
    src = os.path.join(data, clip)
    fps = f"1000/{meta['delay_ms']}"
    seq = os.path.join(src, "f%03d.png")
    out = lambda name: os.path.join(work, f"{clip}-{name}.gif")  # noqa: E731
    ff_default = ["ffmpeg", "-v", "error", "-y", "-framerate", fps, "-i", seq, "-vf",
                  "split[a][b];[a]palettegen[p];[b][p]paletteuse", "-loop", "0"]
    ff_diff = ["ffmpeg", "-v", "error", "-y", "-framerate", fps, "-i", seq, "-vf",
               "split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:diff_mode=rectangle",
               "-loop", "0"]
    frames = sorted(os.path.join(src, f) for f in os.listdir(src) if f.endswith(".png"))
    return [
        ("imgtool", out("imgtool"), [imgtool, "convert", os.path.join(data, clip + ".png"), out("imgtool"), "--force"]),
        ("ffmpeg", out("ffmpeg"), ff_default + [out("ffmpeg")]),
        ("ffmpeg diff+bayer", out("ffmpeg-diff"), ff_diff + [out("ffmpeg-diff")]),
        ("ImageMagick -layers Optimize", out("magick"),
         [b.IM, "-delay", str(meta["delay_ms"] // 10), "-loop", "0", *frames, "-layers", "Optimize", out("magick")]),
        ("vips", out("vips"), ["vips", "copy", os.path.join(data, clip + ".webp") + "[n=-1]", out("vips")]),
        ("ffmpeg + gifsicle -O3", out("gifsicle"),
         f"{shlex.join(ff_default)} {out('gifsicle')}.tmp.gif && gifsicle -O3 {out('gifsicle')}.tmp.gif -o {out('gifsicle')}"),
        ("Pillow save_all", out("pillow"), [sys.executable, "-c", PILLOW, src, out("pillow"), str(meta["delay_ms"])]),
    ]


def source_frames(clip, meta):
    src = os.path.join(data, clip)
    return [os.path.join(src, "f%03d.png" % i) for i in range(meta["frames"])]


def decoded_timeline(path):
    """The output's frames (RGBA arrays) and their start times in ms."""
    im = Image.open(path)
    frames, starts, t = [], [], 0
    for i in range(im.n_frames):
        im.seek(i)
        frames.append(np.asarray(im.convert("RGBA")))
        starts.append(t)
        t += im.info.get("duration", 0) or 0
    return frames, starts, t


def flatten(rgba):
    a = rgba[..., 3:4].astype(np.float32) / 255
    rgb = rgba[..., :3].astype(np.float32) * a + 128 * (1 - a)
    return np.clip(rgb + 0.5, 0, 255).astype(np.uint8)


def score(pair):
    ref, dist = pair
    ba = subprocess.run(["butteraugli_main", ref, dist], capture_output=True, text=True).stdout
    ss = subprocess.run(["ssimulacra_main", ref, dist], capture_output=True, text=True).stdout
    ba_value = float(re.findall(r"[-+]?\d*\.?\d+(?:e[-+]?\d+)?", ba)[0]) if ba.strip() else float("nan")
    ss_value = float(re.findall(r"[-+]?\d*\.?\d+(?:e[-+]?\d+)?", ss)[0]) if ss.strip() else float("nan")
    return ba_value, ss_value


def quality(clip, meta, path, tmp):
    sources = source_frames(clip, meta)
    try:
        frames, starts, total = decoded_timeline(path)
    except Exception as error:  # a peer's output Pillow cannot read
        return {"error": str(error)}
    delay = meta["delay_ms"]
    expected_total = delay * meta["frames"]

    def at(ms):
        index = 0
        for k, s in enumerate(starts):
            if s <= ms:
                index = k
        return frames[index]

    # Flicker over every consecutive pair of source frames (as shown: flattened onto grey, so
    # the invisible colour of a transparent pixel does not count).
    changed = static = 0
    previous_src = previous_out = None
    for k, path_k in enumerate(sources):
        src = flatten(np.asarray(Image.open(path_k).convert("RGBA")))
        out = flatten(at(k * delay + 1))
        if previous_src is not None:
            mask = np.all(src == previous_src, axis=-1)
            static += int(mask.sum())
            changed += int((np.any(out != previous_out, axis=-1) & mask).sum())
        previous_src, previous_out = src, out
    # Scores on sampled frames.
    count = meta["frames"]
    picks = sorted({round(i * (count - 1) / max(args.samples - 1, 1)) for i in range(args.samples)})
    pairs = []
    for k in picks:
        ref = os.path.join(tmp, f"{clip}-ref-{k}.png")
        dist = os.path.join(tmp, f"{clip}-dist-{k}.png")
        if not os.path.exists(ref):
            Image.fromarray(flatten(np.asarray(Image.open(sources[k]).convert("RGBA")))).save(ref)
        Image.fromarray(flatten(at(k * delay + 1))).save(dist)
        pairs.append((ref, dist))
    with ThreadPoolExecutor(2) as pool:
        scores = list(pool.map(score, pairs))
    # Each distortion file is per tool: score them before the next tool overwrites them.
    ba = [s[0] for s in scores]
    ss = [s[1] for s in scores]
    return {
        "frames": len(frames), "total_ms": total, "expected_ms": expected_total,
        "ba_mean": sum(ba) / len(ba), "ba_worst": max(ba), "ss_mean": sum(ss) / len(ss), "ss_worst": max(ss),
        "flicker": 100.0 * changed / static if static else 0.0,
    }


b.keep_core_busy(args.busy)
print(f"# Writing GIFs ({b.machine()}; {args.trials} trials, median wall time, mean CPU{b.mode_note(args.busy)}; "
      f"{args.samples} frames scored per clip; imgtool convert)\n")
results = {}
with tempfile.TemporaryDirectory() as tmp:
    for clip in args.clips.split(","):
        with open(os.path.join(data, clip + ".json")) as f:
            meta = json.load(f)
        rows = []
        clip_results = []
        for name, out, cmd in tools(clip, meta):
            try:
                median, low, high, cpu = b.timed(cmd, trials=args.trials, warmup=1)
            except subprocess.CalledProcessError as error:
                rows.append([name, "failed", "", "", "", "", "", "", "", ""])
                print(f"{clip}: {name} failed: {error}", file=sys.stderr)
                continue
            q = quality(clip, meta, out, tmp)
            size = os.path.getsize(out)
            clip_results.append((name, size, median, q, cpu))
        ours = next((r for r in clip_results if r[0] == "imgtool"), None)
        for name, size, median, q, cpu in clip_results:
            if "error" in q:
                rows.append([name, f"{size:,}", f"{median:.2f}", f"{cpu:.2f}", "", "unreadable", "", "", "", ""])
                continue
            timing = "" if abs(q["total_ms"] - q["expected_ms"]) <= 10 * meta["frames"] else \
                f" (plays {q['total_ms']} ms of {q['expected_ms']})"
            rows.append([
                name + timing, f"{size:,}", f"{median:.2f}", f"{cpu:.2f}",
                f"{median / ours[2]:.2f}" if ours else "", f"{q['ba_mean']:.3f}", f"{q['ba_worst']:.3f}",
                f"{q['ss_mean']:.4f}", f"{q['ss_worst']:.4f}", f"{q['flicker']:.2f}",
            ])
        title = f"{clip} ({meta['width']}x{meta['height']} {meta['mode']}, {meta['frames']} frames of {meta['delay_ms']} ms)"
        print(f"## {title}\n")
        print(b.table(["tool", "bytes", "time (s)", "CPU (s)", "x imgtool", "butteraugli mean", "worst",
                       "ssimulacra mean", "worst", "flicker %"], rows))
        if ours and "error" not in ours[3]:
            smaller_better = [n for n, s, m, q, _ in clip_results if n != "imgtool" and "error" not in q
                              and q["ba_mean"] <= ours[3]["ba_mean"] + 0.05 and s < ours[1]]
            faster = [n for n, s, m, q, _ in clip_results if n != "imgtool" and m <= ours[2]]
            print(f"\nsize target: {'met' if not smaller_better else 'missed: ' + ', '.join(smaller_better)}; "
                  f"speed target: {'met' if not faster else 'missed: ' + ', '.join(faster)}\n")
        results[clip] = clip_results
