#!/usr/bin/env python3
"""Making an existing GIF smaller: imgtool against gifsicle and ImageMagick, in one run.

usage: scripts/bench gif-optimize [--trials N] [--busy] [--skip-large] [--lossy N] [--only lossless|lossy|time]

Inputs: every GIF of the conformance corpus (../shared/corpus, manifest.json, format gif,
expect ok) that gifsicle reads, and three larger GIFs made here with ffmpeg's palettegen and
paletteuse from the GIF benchmark's clips (scripts/make-gif-bench-images.py): a 1,000-frame
screencast (its 60 frames looped), the photographic clip (video) and the sticker.

Lossless (1): `imgtool convert in.gif out.gif`, `gifsicle -O3`, ImageMagick `-layers Optimize`:
bytes per file and in total, whether each output shows exactly the input's frames (every
composited frame's SHA-256, the delays and the plays, as `imgtool info --hash` reads them: the
decoder that passes the conformance corpus), and which files imgtool writes larger than
gifsicle -O3 or larger than the input.

Lossy (2), on the larger GIFs: `imgtool --lossy N` and `gifsicle -O3 --lossy=N` (N 80 unless
--lossy), bytes and butteraugli (mean over sampled frames of each frame's max distance, and of
its 3-norm) against the input's frames; then the largest imgtool --lossy whose butteraugli is
no worse than gifsicle's, and its size: the comparison at equal quality (levels 200, 170, ...,
20 tried in turn, then the gap between the first that qualifies and the one before it halved
until it is 4 or less).

Time (3): wall (median) and CPU (mean, user + system) of each tool over the whole corpus and on
each larger GIF, lossless and lossy; --busy keeps one core busy meanwhile.
"""
import argparse
import functools
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
parser.add_argument("--lossy", type=int, default=80)
parser.add_argument("--samples", type=int, default=6, help="frames per large GIF scored by butteraugli")
parser.add_argument("--skip-large", action="store_true", help="the corpus only")
parser.add_argument("--only", choices=("lossless", "lossy", "time"), help="one part of the three")
parser.add_argument("--magick-timeout", type=float, default=300,
                    help="seconds ImageMagick may take on one file before it is stopped and left out")
b.add_busy_argument(parser)
args = parser.parse_args()

print = functools.partial(print, flush=True)  # noqa: A001 (rows appear as they are measured)
b.ensure_apt("gifsicle", "imagemagick", "ffmpeg", "libjxl-devtools")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
from PIL import Image  # noqa: E402

imgtool = b.build_release()
work = b.work_folder("gif-optimize")
corpus = os.path.join(b.ROOT, "..", "shared", "corpus")


def gifsicle_reads(path):
    return subprocess.run(["gifsicle", "--info", path], capture_output=True).returncode == 0


inputs = []
manifest = json.load(open(os.path.join(corpus, "manifest.json")))
for entry in manifest["entries"]:
    path = os.path.join(corpus, entry["file"])
    if entry.get("format") == "gif" and entry.get("expect") == "ok" and gifsicle_reads(path):
        inputs.append((entry["file"].replace("/", "_").removesuffix(".gif"), path))
corpus_count = len(inputs)

large = []
if not args.skip_large:
    data = os.path.join(b.WORK, "gif")
    b.sh([sys.executable, os.path.join(b.ROOT, "scripts/make-gif-bench-images.py"), data], stdout=subprocess.DEVNULL)
    for clip, loop in (("screencast", 16), ("video", 0), ("sticker", 0)):
        meta = json.load(open(os.path.join(data, clip + ".json")))
        name = "screencast-1000" if loop else clip
        out = os.path.join(work, name + ".gif")
        if not os.path.exists(out):
            frames = ["-frames:v", "1000"] if loop else []
            b.sh(["ffmpeg", "-v", "error", "-y", "-stream_loop", str(loop), "-framerate", f"1000/{meta['delay_ms']}",
                  "-i", os.path.join(data, clip, "f%03d.png"), *frames, "-vf",
                  "split[a][b];[a]palettegen=reserve_transparent=1[p];[b][p]paletteuse", "-loop", "0", out])
        large.append((name, out))
        inputs.append((name, out))


def commands(name, source, lossy=0):
    out = lambda tool: os.path.join(work, f"{name}.{tool}{'-lossy' + str(lossy) if lossy else ''}.gif")  # noqa: E731
    lossy_imgtool = ["--lossy", str(lossy)] if lossy else []
    lossy_gifsicle = [f"--lossy={lossy}"] if lossy else []
    tools = {
        "imgtool": (out("imgtool"), [imgtool, "convert", source, out("imgtool"), "--force", *lossy_imgtool]),
        "gifsicle -O3": (out("gifsicle"), ["gifsicle", "-O3", *lossy_gifsicle, source, "-o", out("gifsicle")]),
    }
    if not lossy:
        tools["ImageMagick -layers Optimize"] = (out("magick"), [b.IM, source, "-layers", "Optimize", out("magick")])
    return tools


def shown(path):
    """What a viewer shows: each composited frame's hash, the delays and the plays."""
    text = subprocess.run([imgtool, "info", "--hash", path], capture_output=True, text=True).stdout
    hashes = re.findall(r"rgba8 sha256 ([0-9a-f]+)", text)
    delays = re.findall(r"delays \(ms\): (.*)", text)
    loops = re.findall(r"loops [^,\n]*|plays once", text)
    return hashes, delays, loops


def size(path):
    return os.path.getsize(path)


# (1) Lossless.
rows, totals, exact_fail, larger_than_gifsicle, larger_than_input = [], {}, [], [], []
timed_out = set()  # inputs ImageMagick did not finish within --magick-timeout
with b.busy_core(args.busy):
    for name, source in inputs if args.only in (None, "lossless") else []:
        tools = commands(name, source)
        failed = set()
        for tool, (out, cmd) in tools.items():
            if os.path.exists(out):
                os.remove(out)
            try:
                limit = args.magick_timeout if tool.startswith("ImageMagick") else None
                if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=limit).returncode:
                    failed.add(tool)
            except subprocess.TimeoutExpired:
                failed.add(tool)
                timed_out.add(name)
        want = shown(source)
        row = {"name": name, "input": size(source)}
        for tool, (out, _) in tools.items():
            if tool in failed:
                # A peer that refuses the file is counted at the input's size in the total.
                row[tool] = None
                exact_fail.append((name, tool + " (failed)"))
                totals[tool] = totals.get(tool, 0) + size(source) * (1 if name not in dict(large) else 0)
                continue
            row[tool] = size(out)
            if shown(out) != want:
                exact_fail.append((name, tool))
            totals[tool] = totals.get(tool, 0) + size(out) * (1 if name not in dict(large) else 0)
        totals["input"] = totals.get("input", 0) + (size(source) if name not in dict(large) else 0)
        if row["imgtool"] is None or (row["gifsicle -O3"] is not None and row["imgtool"] > row["gifsicle -O3"]):
            larger_than_gifsicle.append(name)
        if row["imgtool"] is None or row["imgtool"] > row["input"]:
            larger_than_input.append(name)
        rows.append(row)

if args.only in (None, "lossless"):
    names = ["imgtool", "gifsicle -O3", "ImageMagick -layers Optimize"]
    print(f"# GIF optimisation: lossless{b.mode_note(args.busy)}\n")
    print(f"{corpus_count} corpus GIFs that gifsicle reads, and {len(large)} larger GIFs. Bytes (ratio to gifsicle -O3).\n")
    print("| file | input | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for row in rows:
        g = row["gifsicle -O3"] or row["input"]
        cells = [f"{row[t]:,} ({row[t] / g:.3f})" if row[t] else "failed" for t in names]
        print(f"| {row['name']} | {row['input']:,} | " + " | ".join(cells) + " |")
    g = totals["gifsicle -O3"]
    print(f"| **corpus total** | {totals['input']:,} | " + " | ".join(f"{totals[t]:,} ({totals[t] / g:.4f})" for t in names) + " |")
    print()
    print(f"imgtool larger than gifsicle -O3 on {len(larger_than_gifsicle)} of {len(rows)} files: {', '.join(larger_than_gifsicle) or 'none'}")
    print(f"imgtool larger than its input on {len(larger_than_input)}: {', '.join(larger_than_input) or 'none'}")
    print(f"outputs that do not show exactly the input's frames, delays and plays: {exact_fail or 'none'}")
    print(f"ImageMagick stopped after {args.magick_timeout:.0f} s on: {', '.join(sorted(timed_out)) or 'none'}\n")


# (2) Lossy, on the larger GIFs.
def frames_of(path, count):
    im = Image.open(path)
    n = im.n_frames
    picks = sorted({round(i * (n - 1) / max(count - 1, 1)) for i in range(count)})
    out = []
    for i in picks:
        im.seek(i)
        out.append(im.convert("RGBA"))
    return out


def butteraugli(source, path, tmp):
    ref, got = frames_of(source, args.samples), frames_of(path, args.samples)
    maxima, norms = [], []
    for k, (a, c) in enumerate(zip(ref, got)):
        pa, pc = os.path.join(tmp, f"a{k}.png"), os.path.join(tmp, f"c{k}.png")
        for image, p in ((a, pa), (c, pc)):
            flat = Image.new("RGBA", image.size, (128, 128, 128, 255))
            Image.alpha_composite(flat, image).convert("RGB").save(p)
        text = subprocess.run(["butteraugli_main", pa, pc, "--pnorm", "3"], capture_output=True, text=True).stdout
        values = re.findall(r"[-+]?\d*\.?\d+(?:e[-+]?\d+)?", text)
        maxima.append(float(values[0]))
        norms.append(float(values[-1]))
    return sum(maxima) / len(maxima), sum(norms) / len(norms)


if large and args.only in (None, "lossy"):
    print(f"# GIF optimisation: lossy, --lossy {args.lossy}{b.mode_note(args.busy)}\n")
    print("butteraugli against the input's frames (mean over sampled frames of the max; of the 3-norm).\n")
    print("| file | tool | bytes | butteraugli max | 3-norm |")
    print("|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp, b.busy_core(args.busy):
        for name, source in large:
            tools = commands(name, source, args.lossy)
            scores = {}
            for tool, (out, cmd) in tools.items():
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                scores[tool] = butteraugli(source, out, tmp)
                print(f"| {name} | {tool} --lossy {args.lossy} | {size(out):,} | {scores[tool][0]:.2f} | {scores[tool][1]:.3f} |")
            # imgtool at gifsicle's quality: the largest --lossy no worse on both scores.
            target = scores["gifsicle -O3"]

            def trial(n):
                out = os.path.join(work, f"{name}.imgtool-match.gif")
                subprocess.run([imgtool, "convert", source, out, "--force", "--lossy", str(n)], check=True)
                score = butteraugli(source, out, tmp)
                return score[0] <= target[0] and score[1] <= target[1], (n, size(out), score)

            best, above = None, None
            for n in (200, 170, 140, 120, 100, 80, 60, 40, 20):
                ok, result = trial(n)
                if ok:
                    best = result
                    break
                above = n
            # Between the first level that qualifies and the one before it that did not.
            while best and above and above - best[0] > 4:
                ok, result = trial((best[0] + above) // 2)
                if ok:
                    best = result
                else:
                    above = result[0]
            if best:
                n, bytes_, score = best
                ratio = bytes_ / size(tools["gifsicle -O3"][0])
                print(f"| {name} | imgtool --lossy {n} (no worse than gifsicle) | {bytes_:,} ({ratio:.3f}x gifsicle) | {score[0]:.2f} | {score[1]:.3f} |")
            else:
                print(f"| {name} | imgtool: no --lossy 20-200 as good as gifsicle's | | | |")
    print()


# (3) Time.
def timing(label, jobs):
    """jobs: {tool: [command, ...]}, each tool's commands run one after another as one sample.
    ImageMagick, minutes on the larger GIFs, is timed once, without a warm-up run."""
    # A file a tool refuses does not stop its other files (the refusals are listed above).
    scripts = {tool: "; ".join(" ".join(map(shlex_quote, c)) + " 2>/dev/null" for c in cmds) + "; true"
               for tool, cmds in jobs.items()}
    slow = {t: c for t, c in scripts.items() if t.startswith("ImageMagick")}
    samples, failures = b.run_interleaved(
        {t: c for t, c in scripts.items() if t not in slow}, trials=args.trials, warmup=1)
    for tool, script in slow.items():
        samples[tool] = [b.run_once(script)]
    for tool, runs in samples.items():
        walls = sorted(w for w, _ in runs)
        cpu = sum(c for _, c in runs) / len(runs)
        print(f"| {label} | {tool} | {walls[len(walls) // 2]:.2f} | {cpu:.2f} |")
    for tool, error in failures.items():
        print(f"| {label} | {tool} | failed (exit {error.returncode}) | |")


def shlex_quote(s):
    import shlex
    return shlex.quote(s)


if args.only in (None, "time"):
    print(f"# GIF optimisation: time{b.mode_note(args.busy)}\n")
    print("| inputs | tool | wall s (median) | CPU s (user + system) |")
    print("|---|---|---:|---:|")
    with b.busy_core(args.busy):
        corpus_inputs = inputs[:corpus_count]
        jobs = {}
        for name, source in corpus_inputs:
            for tool, (_, cmd) in commands(name, source).items():
                if tool != "ImageMagick -layers Optimize":
                    jobs.setdefault(tool, []).append(cmd)
        timing(f"{corpus_count} corpus GIFs, lossless", jobs)
        for name, source in large:
            # ImageMagick is timed where the lossless part saw it finish within --magick-timeout
            # (not at all with --only time: minutes on the screencast).
            timing(f"{name}, lossless", {t: [c] for t, (_, c) in commands(name, source).items()
                                         if not (t.startswith("ImageMagick")
                                                 and (name in timed_out or args.only == "time"))})
            timing(f"{name}, --lossy {args.lossy}", {t: [c] for t, (_, c) in commands(name, source, args.lossy).items()})
