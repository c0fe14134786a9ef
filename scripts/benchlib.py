"""Shared helpers for imgtool's benchmark scripts: whole-process timing with warm-up runs,
N samples, median and spread (`measure`), CPU time of a run (user + system of the process and its
children: `timed`, `measure_with_cpu`), peak memory from /usr/bin/time -v, a Markdown table, and
`--busy` (`add_busy_argument`, then `keep_core_busy` or `with busy_core(...)`: one core kept busy
by a spinning process while every tool is measured; `mode_note` for the report's title).

Environment: IMGTOOL_BIN=PATH makes `build_release()` return that imgtool binary instead of
building one (scripts/build-release), e.g. to benchmark a saved build while the tree changes."""
import contextlib
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
WORK = os.path.join(ROOT, ".bench")


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), check=True, **kw)


def ensure_apt(*packages):
    missing = [p for p in packages if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode != 0]
    if missing:
        print(f"bench: installing {' '.join(missing)}", file=sys.stderr)
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        sh(sudo + ["apt-get", "update", "-qq"])
        sh(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
           env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"}, stdout=subprocess.DEVNULL)


def ensure_pip(*modules):
    for module, package in modules:
        try:
            __import__(module)
        except ImportError:
            sh([sys.executable, "-m", "pip", "install", "-q", package])


def build_release():
    if os.environ.get("IMGTOOL_BIN"):
        return os.environ["IMGTOOL_BIN"]
    sh([os.path.join(ROOT, "scripts/build-release")], cwd=ROOT, stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, ".build/release/imgtool")


def build_c(name, source, libs):
    os.makedirs(WORK, exist_ok=True)
    out = os.path.join(WORK, name)
    src = os.path.join(ROOT, source)
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        sh(["cc", "-O2", "-o", out, src, *libs])
    return out


def run_samples(cmd, trials=5, warmup=1, cwd=None):
    """Runs `cmd` warmup + trials times, one after another; returns (wall seconds, CPU seconds) of
    each of the last `trials` runs. CPU is user + system time of the process and every child it
    waited for (threads included), from RUSAGE_CHILDREN around that one run."""
    samples = []
    for i in range(warmup + trials):
        sample = run_once(cmd, cwd=cwd)
        if i >= warmup:
            samples.append(sample)
    return samples


def run_once(cmd, cwd=None):
    """Runs `cmd` once; returns (wall seconds, CPU seconds), CPU as for `run_samples`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, shell=isinstance(cmd, str), check=True, cwd=cwd,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def run_interleaved(cmds, trials=5, warmup=1, cwd=None):
    """`run_samples` for several commands at once, taken in turn (one run of each, then again), so
    that a slow or fast spell of a shared machine falls on every tool alike rather than on
    whichever ran then. `cmds` maps a name to a command; a command that fails in its warm-up run is
    left out, with its CalledProcessError. Returns ({name: samples}, {name: error})."""
    samples, failures = {name: [] for name in cmds}, {}
    for name, cmd in cmds.items():
        try:
            for _ in range(warmup):
                run_once(cmd, cwd=cwd)
        except subprocess.CalledProcessError as error:
            failures[name] = error
    working = [name for name in cmds if name not in failures]
    for _ in range(trials):
        for name in working:
            samples[name].append(run_once(cmds[name], cwd=cwd))
    return {name: samples[name] for name in working}, failures


def measure(cmd, trials=5, warmup=1, cwd=None):
    """Runs `cmd` warmup + trials times; returns (median seconds, min, max)."""
    walls = [wall for wall, _ in run_samples(cmd, trials=trials, warmup=warmup, cwd=cwd)]
    return statistics.median(walls), min(walls), max(walls)


def timed(cmd, trials=5, warmup=1, cwd=None):
    """Runs `cmd` as `measure` does; returns (median wall seconds, min, max, mean CPU seconds of a
    run), CPU = user + system of the measured runs (not the warm-ups): on a shared machine the wall
    time swings with other load, the CPU time much less."""
    samples = run_samples(cmd, trials=trials, warmup=warmup, cwd=cwd)
    walls = [wall for wall, _ in samples]
    return (statistics.median(walls), min(walls), max(walls),
            statistics.fmean(cpu for _, cpu in samples))


def measure_with_cpu(cmd, trials=5, warmup=1, cwd=None):
    """`timed` without the spread: (median wall seconds, mean CPU seconds of a run)."""
    med, _, _, cpu = timed(cmd, trials=trials, warmup=warmup, cwd=cwd)
    return med, cpu


def add_busy_argument(parser):
    parser.add_argument("--busy", action="store_true",
                        help="keep one core busy (a spinning process) while every tool is measured")


def _die_with_parent():
    """In the spinner, before exec: the kernel kills it when this script dies, even by SIGKILL."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def keep_core_busy(enabled):
    """For --busy: starts a process that spins on one core (`python3 -c "while True: pass"`), so
    every tool measured after it shares the machine with it. Returns a function that stops it (call
    it when measuring is done; calling it again does nothing). The spinner is also stopped when
    this script exits however it exits: normally, on an exception, Ctrl-C, SIGTERM or SIGHUP (and
    by the kernel if the script is killed outright). Does nothing, and returns a no-op, when not
    `enabled`."""
    if not enabled:
        return lambda: None
    import atexit
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=_die_with_parent,
                               stdin=subprocess.DEVNULL)

    def stop():
        if spinner.poll() is None:
            spinner.kill()
        spinner.wait()

    atexit.register(stop)
    for number in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(number) == signal.SIG_DFL:
            signal.signal(number, lambda n, _: sys.exit(128 + n))
    time.sleep(0.2)  # let it reach the loop before the first measurement
    return stop


@contextlib.contextmanager
def busy_core(enabled):
    """`with busy_core(args.busy): ...`: keep_core_busy for the block only."""
    stop = keep_core_busy(enabled)
    try:
        yield
    finally:
        stop()


def mode_note(busy):
    """The words a report title gets for --busy (none without it)."""
    return "; one core kept busy by a spinning process" if busy else ""


def photo_like(width, height, seed=1234):
    """A photo-like RGB picture (smooth multi-octave colour plus sensor-like grain), as a PIL image;
    the same pixels for the same arguments."""
    import numpy as np
    from PIL import Image
    rng = np.random.default_rng(seed)
    layers = []
    for _ in range(3):
        acc = np.zeros((height, width), np.float32)
        for cells, weight in ((4, 0.5), (16, 0.3), (64, 0.15), (256, 0.05)):
            small = Image.fromarray((rng.random((cells, cells)) * 255).astype(np.uint8))
            acc += np.asarray(small.resize((width, height), Image.BICUBIC), np.float32) * weight
        acc += rng.normal(0, 3, (height, width)).astype(np.float32)
        layers.append(acc)
    return Image.fromarray(np.clip(np.stack(layers, -1), 0, 255).astype(np.uint8), "RGB")


def peak_memory_mib(cmd, cwd=None):
    """Maximum resident set size of one run, in MiB (from /usr/bin/time -v)."""
    full = ["/usr/bin/time", "-v"] + (["sh", "-c", cmd] if isinstance(cmd, str) else cmd)
    result = subprocess.run(full, capture_output=True, text=True, cwd=cwd)
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    return int(match.group(1)) / 1024 if match else float("nan")


def table(headers, rows):
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def machine():
    cpu = "unknown cpu"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}"

# ImageMagick 6 from Debian. Named by full path: some machines put an unrelated `convert` first on PATH.
IM = "/usr/bin/convert"


def anim_inputs():
    """Makes the animation benchmark inputs (scripts/make-anim-images.py) once; returns their folder."""
    data = os.path.join(WORK, "anim")
    sh([sys.executable, os.path.join(ROOT, "scripts/make-anim-images.py"), data], stdout=subprocess.DEVNULL)
    return data


def work_folder(name):
    """A folder of .bench/ for one benchmark's outputs."""
    folder = os.path.join(WORK, name)
    os.makedirs(folder, exist_ok=True)
    return folder
