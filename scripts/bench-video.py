#!/usr/bin/env python3
"""scripts/bench video: (a) a 10 s 640x360 clip (H.264 in MP4, 30 fps) to a 480-wide GIF at 15 fps,
imgtool against ffmpeg's palette recipe, whole process, in one run.

Two clips are made here with ffmpeg: `pan`, a natural-looking one (a slow camera pan across a
photo-like picture, benchlib.photo_like, with moving film grain), and `testsrc2` (ffmpeg's moving
test pattern). Each is written by:
  - imgtool: `imgtool convert clip.mp4 out.gif --fps 15 --resize 480` (release build; the video is
    decoded by libavcodec in imgtool's decoder process);
  - ffmpeg two-pass: `ffmpeg -i clip.mp4 -vf fps=15,scale=480:-1:flags=lanczos,palettegen pal.png`
    then `ffmpeg -i clip.mp4 -i pal.png -lavfi "fps=15,scale=480:-1:flags=lanczos[x];[x][1:v]paletteuse"`
    (the recipe the web gives), timed together;
  - ffmpeg in one command: the same filters with split, palettegen and paletteuse in one graph.
gifski cannot be installed from a registry here (not in Debian 12; crates.io and npm unreachable),
so it is left out.

For every output: bytes, median wall time, CPU time (user + system of the process and its
children, mean of a run), peak memory (the largest resident set of any one process of the run,
/usr/bin/time -v), and quality against the source: the clip's frames decoded by ffmpeg and scaled
to 480 wide with lanczos, each sampled frame compared with the output frame on screen at its time
(frames on the 15 fps ticks, so both tools show the same source frame there): butteraugli
(max-norm) and ssimulacra, mean and worst of the samples. Against two references, because the
scores depend on them more than on the GIF writers: `RGB`, the frames as a player shows them
(converted to RGB at full size) scaled in RGB, as imgtool scales; and `YUV`, the frames scaled in
YUV 4:2:0 before the conversion, as ffmpeg's GIF recipe scales (its chroma stays at a quarter of
the pixels). Each favours the tool that scales its way: the two differ from each other by a
butteraugli of 12 on testsrc2's sharp coloured edges, as much as the tools do. So a third,
`source`, favours neither tool's pipeline: the frames the clip was made from, before H.264
(testsrc2 drawn in RGB; the pan's photo crop with its grain), scaled in RGB, the 480-wide
picture a GIF writer should aim at.
With --busy, every tool runs while a spinning process keeps one core busy.

usage: scripts/bench video [--trials N] [--samples K] [--clips pan,testsrc2] [--busy]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
parser.add_argument("--samples", type=int, default=6, help="frames per clip scored by butteraugli/ssimulacra")
parser.add_argument("--clips", default="pan,testsrc2")
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("ffmpeg", "libjxl-devtools", "time")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

SECONDS, RATE, GIF_RATE, WIDTH = 10, 30, 15, 480
data = b.work_folder("video")
work = b.work_folder("video-out")
imgtool = b.build_release()
FFMPEG = ["ffmpeg", "-v", "error", "-nostdin", "-y"]


def make_clip(name):
    """The clip `name`.mp4 in .bench/video (made once): 10 s of 640x360 at 30 fps, H.264 CRF 23 yuv420p."""
    path = os.path.join(data, name + ".mp4")
    if os.path.exists(path):
        return path
    encode = ["-t", str(SECONDS), "-r", str(RATE), "-c:v", "libx264", "-preset", "medium", "-crf", "23",
              "-pix_fmt", "yuv420p", path]
    if name == "pan":
        photo = os.path.join(data, "pan-photo.png")
        b.photo_like(1280, 720, seed=44).save(photo)
        # A camera panning across the picture at 60 and 30 pixels a second, with moving grain.
        b.sh(FFMPEG + ["-loop", "1", "-framerate", str(RATE), "-i", photo, "-vf",
                       "crop=640:360:x='t*60':y='t*30',noise=alls=3:allf=t"] + encode)
    else:
        b.sh(FFMPEG + ["-f", "lavfi", "-i", f"testsrc2=size=640x360:rate={RATE}"] + encode)
    return path


def tools(clip, path):
    out = lambda tool: os.path.join(work, f"{clip}-{tool}.gif")  # noqa: E731
    scale = f"fps={GIF_RATE},scale={WIDTH}:-1:flags=lanczos"
    palette = os.path.join(work, f"{clip}-palette.png")
    two_pass = (f"ffmpeg -v error -nostdin -y -i {path} -vf {scale},palettegen {palette} && "
                f"ffmpeg -v error -nostdin -y -i {path} -i {palette} -lavfi '{scale}[x];[x][1:v]paletteuse' "
                f"-loop 0 {out('ffmpeg-2pass')}")
    return [
        ("imgtool", out("imgtool"),
         [imgtool, "convert", path, out("imgtool"), "--fps", str(GIF_RATE), "--resize", str(WIDTH), "--force"]),
        ("ffmpeg two-pass palettegen/paletteuse", out("ffmpeg-2pass"), two_pass),
        ("ffmpeg one command (split, palettegen, paletteuse)", out("ffmpeg-split"),
         FFMPEG + ["-i", path, "-vf", f"{scale},split[a][b];[a]palettegen[p];[b][p]paletteuse", "-loop", "0",
                   out("ffmpeg-split")]),
    ]


REFERENCES = {"RGB": f"format=rgb24,scale={WIDTH}:-1:flags=lanczos", "YUV": f"scale={WIDTH}:-1:flags=lanczos",
              "source": f"format=rgb24,scale={WIDTH}:-1:flags=lanczos"}


def references(clip, path, kind):
    """The clip's frames decoded by ffmpeg, scaled to 480 wide (lanczos) in RGB or in YUV
    (`kind`), as PNG files, one per source frame; for `source`, the frames the clip was made
    from, before H.264 (testsrc2 drawn in RGB; the pan's photo crop with its grain, in the 4:2:0
    samples the encoder took, shown in RGB as the RGB reference shows a decoded frame), scaled
    in RGB."""
    folder = os.path.join(data, f"{clip}-ref-{kind.lower()}")
    if not os.path.isdir(folder) or len(os.listdir(folder)) < SECONDS * RATE:
        os.makedirs(folder, exist_ok=True)
        if kind != "source":
            b.sh(FFMPEG + ["-i", path, "-vf", REFERENCES[kind], "-fps_mode", "passthrough",
                           os.path.join(folder, "%04d.png")])
        elif clip == "pan":
            # The filters of make_clip with the 4:2:0 step the encoder's negotiation put before
            # the grain made explicit (the same samples, checked: the grain is added to 4:2:0).
            b.sh(FFMPEG + ["-loop", "1", "-framerate", str(RATE), "-t", str(SECONDS), "-i",
                           os.path.join(data, "pan-photo.png"), "-vf",
                           "crop=640:360:x='t*60':y='t*30',format=yuv420p,noise=alls=3:allf=t,"
                           + REFERENCES[kind], os.path.join(folder, "%04d.png")])
        else:
            b.sh(FFMPEG + ["-f", "lavfi", "-i", f"testsrc2=size=640x360:rate={RATE}", "-t", str(SECONDS), "-vf",
                           REFERENCES[kind], os.path.join(folder, "%04d.png")])
    return sorted(os.path.join(folder, name) for name in os.listdir(folder))


def timeline(gif):
    """The GIF's frames (RGB arrays) and their start times in ms, and the total."""
    image = Image.open(gif)
    frames, starts, t = [], [], 0
    for i in range(image.n_frames):
        image.seek(i)
        frames.append(np.asarray(image.convert("RGB")))
        starts.append(t)
        t += image.info.get("duration", 0) or 0
    return frames, starts, t


def score(pair):
    ref, dist = pair
    numbers = []
    for tool in ("butteraugli_main", "ssimulacra_main"):
        text = subprocess.run([tool, ref, dist], capture_output=True, text=True).stdout
        found = re.findall(r"[-+]?\d*\.?\d+(?:e[-+]?\d+)?", text)
        numbers.append(float(found[0]) if found else float("nan"))
    return numbers


def quality(clip, refs, gif, tmp):
    """The scores of `gif` against each reference in `refs` (kind: frames)."""
    frames, starts, total = timeline(gif)
    result = {"frames": len(frames), "total_ms": total}
    for kind, files in refs.items():
        result[kind] = scores(f"{clip}-{kind}", files, gif, frames, starts, tmp)
    return result


def scores(clip, refs, gif, frames, starts, tmp):
    count = len(refs)
    # Source frames on the 15 fps ticks (every other one), evenly spread.
    step = RATE // GIF_RATE
    picks = sorted({step * int(i * (count - 1) / step / max(args.samples - 1, 1)) for i in range(args.samples)})
    pairs = []
    for k in picks:
        ms = k * 1000 / RATE + 1
        index = max(i for i, start in enumerate(starts) if start <= ms)
        dist = os.path.join(tmp, f"{clip}-{os.path.basename(gif)}-{k}.png")
        Image.fromarray(frames[index]).save(dist)
        pairs.append((refs[k], dist))
    with ThreadPoolExecutor(2) as pool:
        scores = list(pool.map(score, pairs))
    ba = [s[0] for s in scores]
    ss = [s[1] for s in scores]
    return {"ba_mean": sum(ba) / len(ba), "ba_worst": max(ba), "ss_mean": sum(ss) / len(ss), "ss_worst": max(ss)}


clips = {name: make_clip(name) for name in args.clips.split(",")}
refs = {name: {kind: references(name, path, kind) for kind in REFERENCES} for name, path in clips.items()}
b.keep_core_busy(args.busy)
print(f"# Video to GIF ({b.machine()}; {args.trials} trials, median wall time, mean CPU{b.mode_note(args.busy)}; "
      f"10 s 640x360 H.264 at 30 fps to a {WIDTH}-wide GIF at {GIF_RATE} fps; {args.samples} frames scored)\n")
with tempfile.TemporaryDirectory() as tmp:
    for clip, path in clips.items():
        rows, results = [], []
        for name, out, cmd in tools(clip, path):
            try:
                median, low, high, cpu = b.timed(cmd, trials=args.trials, warmup=1)
            except subprocess.CalledProcessError as error:
                print(f"{clip}: {name} failed: {error}", file=sys.stderr)
                rows.append([name, "failed"] + [""] * 7)
                continue
            memory = b.peak_memory_mib(cmd)
            results.append((name, os.path.getsize(out), median, cpu, memory, quality(clip, refs[clip], out, tmp)))
        ours = next((r for r in results if r[0] == "imgtool"), None)
        for name, size, median, cpu, memory, q in results:
            rows.append([
                name, f"{size:,}", f"{median:.2f}", f"{cpu:.2f}", f"{median / ours[2]:.2f}" if ours else "",
                f"{memory:.0f}", f"{q['frames']} / {q['total_ms']} ms"] + [
                f"{q[kind]['ba_mean']:.3f} / {q[kind]['ba_worst']:.3f} / {q[kind]['ss_mean']:.4f}"
                for kind in REFERENCES])
        print(f"## {clip} ({os.path.getsize(path):,} bytes of H.264)\n")
        print(b.table(["tool", "bytes", "time (s)", "CPU (s)", "x imgtool", "peak MiB", "frames / play"]
                      + [f"{kind} ref: butteraugli mean / worst / ssimulacra mean" for kind in REFERENCES], rows))
        if ours:
            slower = [r[0] for r in results if r[0] != "imgtool" and (r[2] <= ours[2] or r[3] <= ours[3])]
            print(f"\nfaster in wall and CPU: {'yes' if not slower else 'no, against ' + ', '.join(slower)}")
            for kind in REFERENCES:
                # The target: smaller than every peer, at a butteraugli as good (within 0.05) or better.
                missed = [r[0] for r in results if r[0] != "imgtool" and
                          (r[1] <= ours[1] or r[5][kind]["ba_mean"] < ours[5][kind]["ba_mean"] - 0.05)]
                print(f"smaller at equal-or-better butteraugli ({kind} reference): "
                      f"{'yes' if not missed else 'no, against ' + ', '.join(missed)}")
            print()
