#!/usr/bin/env python3
"""Reduces full-suite runs to what `bench compare` reads of them, for runs-apart.csv and runs-apart-zen4.csv.

usage: extract_runs.py STRETCH=DIR [STRETCH=DIR ...] > runs-apart.csv
       extract_runs.py nights=DIR > runs-apart-zen4.csv

Each DIR holds runs of one build written by `bench run --output DIR` (<run>.csv and
<run>.samples.csv). For every run, case and measuring process, one row: the process's fastest
sample, and the case's median over the run (the busy-run guard reads it). Runs are numbered in
time order within their stretch.
"""
import csv, os, sys, collections

print("stretch,run,commit,case,process,fastest_ns,median_ns")
for argument in sys.argv[1:]:
    stretch, directory = argument.split("=", 1)
    runs = sorted(f[: -len(".samples.csv")] for f in os.listdir(directory)
                  if f.endswith(".samples.csv") and f[0].isdigit())
    for number, run in enumerate(runs):
        medians, commit = {}, ""
        with open(os.path.join(directory, run + ".csv"), newline="") as f:
            for row in csv.DictReader(f):
                medians[f"{row['operation']}/{row['backend']}/{row['size']}"] = row["ns_median"]
                commit = row["commit"]
        fastest = collections.defaultdict(dict)
        with open(os.path.join(directory, run + ".samples.csv"), newline="") as f:
            for row in csv.DictReader(f):
                key = f"{row['operation']}/{row['backend']}/{row['size']}"
                process, value = int(row["process"]), float(row["ns_per_op"])
                fastest[key][process] = min(value, fastest[key].get(process, value))
        for key in sorted(fastest):
            for process in sorted(fastest[key]):
                print(f"{stretch},{number},{commit},{key},{process},{fastest[key][process]:.3f},{medians[key]}")
