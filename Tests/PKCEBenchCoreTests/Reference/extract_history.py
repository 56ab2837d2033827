#!/usr/bin/env python3
"""Reduces runs to what `bench history --changes` reads of them, for history-runs.csv.

usage: extract_history.py [--figure fastest|median] [--join K] NAME=SOURCE [NAME=SOURCE ...] > history-runs.csv

A SOURCE is a directory of runs written by `bench run --output DIR` (<run>.csv), or
runs-apart.csv:STRETCH[+STRETCH] (each process's fastest sample, as extract_runs.py wrote them; the
stretches' runs one after the other). For every run, in time order, and case: the run's fastest
sample in ns/op.

Two other figures a run could have, for runs-apart.csv only (they need each process's fastest):
`--figure median`, the median over the run's processes of each one's fastest sample; `--join K`,
every K neighbouring runs taken as one run of K times the processes (the last ones left over are
dropped), as a run of more measuring processes would be.
"""
import argparse, collections, csv, glob, os, statistics

parser = argparse.ArgumentParser()
parser.add_argument("--figure", choices=("fastest", "median"), default="fastest")
parser.add_argument("--join", type=int, default=1)
parser.add_argument("sources", nargs="+", metavar="NAME=SOURCE")
arguments = parser.parse_args()
combine = min if arguments.figure == "fastest" else statistics.median

print("history,run,case,fastest_ns")
for argument in arguments.sources:
    name, source = argument.split("=", 1)
    runs = []
    if os.path.isdir(source):
        if arguments.figure != "fastest" or arguments.join != 1:
            parser.error("--figure and --join need each process's fastest sample: runs-apart.csv")
        for path in sorted(p for p in glob.glob(os.path.join(source, "2*.csv")) if not p.endswith(".samples.csv")):
            with open(path, newline="") as f:
                runs.append({f"{r['operation']}/{r['backend']}/{r['size']}": float(r["ns_min"]) for r in csv.DictReader(f)})
    else:
        path, stretches = source.split(":", 1)
        stretches = stretches.split("+")
        processes = collections.defaultdict(lambda: collections.defaultdict(list))
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["stretch"] in stretches:
                    run = (stretches.index(r["stretch"]), int(r["run"]))
                    processes[run][r["case"]].append(float(r["fastest_ns"]))
        order = sorted(processes)
        for first in range(0, len(order) - arguments.join + 1, arguments.join):
            joined = collections.defaultdict(list)
            for run in order[first:first + arguments.join]:
                for case, values in processes[run].items():
                    joined[case] += values
            runs.append({case: combine(values) for case, values in joined.items()})
    for number, run in enumerate(runs):
        for case in sorted(run):
            print(f"{name},{number},{case},{run[case]:.3f}")
