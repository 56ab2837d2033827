#!/usr/bin/env python3
"""How far each figure a run could give a case moves from one run to the next, as VerdictStatistics.md
quotes it.

usage: run_figures.py [runs-apart.csv]

For each case of runs-apart.csv (each measuring process's fastest sample; the quiet runs, then the
busy ones), the standard deviation of one run's log figure by von Neumann's mean square successive
difference, in percent, for four figures: the fastest of the run's processes (what the history keeps),
the median of them, their 20% trimmed mean and their mean (on the logs). Prints the average over the
cases and the cases that move most.
"""
import collections, csv, math, os, statistics, sys

path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs-apart.csv")
processes = collections.defaultdict(lambda: collections.defaultdict(list))
with open(path, newline="") as f:
    for row in csv.DictReader(f):
        run = (("quiet", "busy").index(row["stretch"]), int(row["run"]))
        processes[row["case"]][run].append(math.log(float(row["fastest_ns"])))


def trimmed(values):
    values = sorted(values)
    cut = int(0.2 * len(values))
    return statistics.mean(values[cut:len(values) - cut])


FIGURES = {"fastest": min, "median": statistics.median, "trimmed mean": trimmed, "mean": statistics.mean}


def noise(series):
    differences = [b - a for a, b in zip(series, series[1:])]
    return 100 * math.sqrt(sum(d * d for d in differences) / (2 * len(differences)))


table = {case: {name: noise([figure(runs[r]) for r in sorted(runs)]) for name, figure in FIGURES.items()}
         for case, runs in processes.items()}
print("figure: mean over cases, median, largest (case)")
for name in FIGURES:
    values = {case: row[name] for case, row in table.items()}
    worst = max(values, key=values.get)
    print(f"{name}: {statistics.mean(values.values()):.2f}%, {statistics.median(values.values()):.2f}%, "
          f"{values[worst]:.2f}% ({worst})")
