#!/usr/bin/env python3
"""Reduces runs to what `bench history --changes` reads of them, for history-runs.csv.

usage: extract_history.py NAME=SOURCE [NAME=SOURCE ...] > history-runs.csv

A SOURCE is a directory of runs written by `bench run --output DIR` (<run>.csv), or
runs-apart.csv:STRETCH[+STRETCH] (each process's fastest sample, as extract_runs.py wrote them; the
stretches' runs one after the other). For every run, in time order, and case: the run's fastest
sample in ns/op.
"""
import collections, csv, glob, os, sys

print("history,run,case,fastest_ns")
for argument in sys.argv[1:]:
    name, source = argument.split("=", 1)
    runs = []
    if os.path.isdir(source):
        for path in sorted(p for p in glob.glob(os.path.join(source, "2*.csv")) if not p.endswith(".samples.csv")):
            with open(path, newline="") as f:
                runs.append({f"{r['operation']}/{r['backend']}/{r['size']}": float(r["ns_min"]) for r in csv.DictReader(f)})
    else:
        path, stretches = source.split(":", 1)
        stretches = stretches.split("+")
        fastest = collections.defaultdict(dict)
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["stretch"] in stretches:
                    run, value = (stretches.index(r["stretch"]), int(r["run"])), float(r["fastest_ns"])
                    fastest[run][r["case"]] = min(value, fastest[run].get(r["case"], value))
        runs = [fastest[run] for run in sorted(fastest)]
    for number, run in enumerate(runs):
        for case in sorted(run):
            print(f"{name},{number},{case},{run[case]:.3f}")
