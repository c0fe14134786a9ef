#!/usr/bin/env python3
"""Paired runs for before/after comparisons on a shared machine: runs each command in turn,
round after round (so that every command sees the same load), and prints for each the median
wall time and the median CPU time (user + system, from wait4, threads included) of its runs,
with the page faults of the last run. With --busy, every command runs while a spinning process
keeps one core busy (a lead that exists only with an idle second core then shows).

usage: scripts/bench-jpeg-paired.py [--rounds N] [--warmup N] [--busy] 'label=command' ...
e.g.   scripts/bench-jpeg-paired.py --rounds 15 \\
           "before=/tmp/imgtool-before info --verify photo.jpg" \\
           "after=.build/release/imgtool info --verify photo.jpg" \\
           "djpeg=djpeg -outfile /dev/null photo.jpg"
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--rounds", type=int, default=11)
parser.add_argument("--warmup", type=int, default=1)
b.add_busy_argument(parser)
parser.add_argument("commands", nargs="+")
args = parser.parse_args()

commands = [(c.split("=", 1)[0], shlex.split(c.split("=", 1)[1])) for c in args.commands]
results = {label: {"wall": [], "cpu": [], "user": [], "sys": [], "faults": 0} for label, _ in commands}
stop_busy = b.keep_core_busy(args.busy)
for round in range(args.warmup + args.rounds):
    for label, cmd in commands:
        start = time.perf_counter()
        process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        if status != 0:
            raise SystemExit(f"{label}: exit status {status}")
        if round >= args.warmup:
            results[label]["wall"].append(wall)
            results[label]["cpu"].append(usage.ru_utime + usage.ru_stime)
            results[label]["user"].append(usage.ru_utime)
            results[label]["sys"].append(usage.ru_stime)
            results[label]["faults"] = usage.ru_minflt

stop_busy()

load = open("/proc/loadavg").read().split()[0]
print(f"{args.rounds} rounds, load average {load} at the end, {os.cpu_count()} cores{b.mode_note(args.busy)}")
print(f"{'command':<24} {'wall median':>12} {'wall min':>9} {'CPU median':>11} {'user':>9} {'sys':>9} {'faults':>7}")
for label, _ in commands:
    r = results[label]
    print(f"{label:<24} {statistics.median(r['wall']) * 1000:>9.1f} ms {min(r['wall']) * 1000:>6.1f} ms "
          f"{statistics.median(r['cpu']) * 1000:>8.1f} ms {statistics.median(r['user']) * 1000:>6.1f} ms "
          f"{statistics.median(r['sys']) * 1000:>6.1f} ms {r['faults']:>7}")
