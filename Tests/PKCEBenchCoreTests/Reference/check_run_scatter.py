#!/usr/bin/env python3
"""Do a case's estimates scatter from run to run more than each run's standard error says?

The gate's standard error comes from the pairs of one run. If something shared by a whole run moved
a case (a run-level offset the pairs cannot see), the same case's estimates over repeated runs of
equal-code builds would scatter more than those standard errors, and a per-case false-alarm bound
computed from one run's pairs would not hold. Each row of the input is one case of one real
`bench ab --against` run of a harmless change: its pairs, 20% trimmed mean of the pair figures (log
ratio), Yuen's standard error and degrees of freedom. Per condition and case, Cochran's Q (Cochran
1954, "The combination of estimates from different experiments") tests whether the runs' estimates
differ by more than their standard errors. Q's chi-square distribution takes the standard errors as
known; these are estimated from 20 to 80 pairs, so each run's deviation is Student-t with the run's
degrees of freedom, not normal, and Q runs larger. The calibrated p-value therefore takes Q's
distribution under that null, simulated (each run's estimate its standard error times a t draw):
with no run-level offset, p < 0.05 in about 5% of the cases.

    python3 check_run_scatter.py harmless-run-estimates.csv
    python3 check_run_scatter.py --extract CONDITION=DIR [...] > harmless-run-estimates.csv

where each DIR holds `bench ab --output` directories named run-CONDITION-N.
"""
import csv
import math
import os
import sys
from collections import defaultdict

import numpy as np
from scipy import stats

from simulate_gate import estimate


def pair_figures(directory):
    """A run's pair figures per case, as simulate_gate.py --extract computes them."""
    def samples(name):
        taken = defaultdict(lambda: defaultdict(dict))
        with open(os.path.join(directory, name)) as file:
            for row in csv.DictReader(file):
                case = f"{row['operation']}/{row['backend']}/{row['size']}"
                taken[case][int(row["process"])][int(row["sample"])] = float(row["ns_per_op"])
        return taken
    baseline, current = samples("ab-baseline.samples.csv"), samples("ab-current.samples.csv")
    figures = {}
    for case in sorted(baseline):
        figures[case] = [
            float(np.median([math.log(current[case][pair][i] / old) for i, old in baseline[case][pair].items()]))
            for pair in sorted(baseline[case])]
    return figures


def extract(arguments):
    print("condition,run,case,pairs,estimate,standard_error,degrees_of_freedom")
    for argument in arguments:
        condition, directory = argument.split("=", 1)
        runs = sorted((int(name.rsplit("-", 1)[1]), name) for name in os.listdir(directory)
                      if name.startswith(f"run-{condition}-") and os.path.isdir(os.path.join(directory, name)))
        for number, (_, name) in enumerate(runs, 1):
            for case, figures in pair_figures(os.path.join(directory, name)).items():
                m, se, df = estimate(np.array(figures), 0.2)
                print(f"{condition},{number},{case},{len(figures)},{m:.7g},{se:.7g},{df}")


def calibrated_p(q, errors, freedoms, rng, draws=4000):
    """P(Q >= q) when each run's estimate is its standard error times a Student-t draw."""
    w = 1 / errors**2
    m = errors * rng.standard_t(freedoms, size=(draws, len(errors)))
    mean = (m * w).sum(axis=1, keepdims=True) / w.sum()
    return float(((w * (m - mean)**2).sum(axis=1) >= q).mean())


def check(path):
    runs = defaultdict(list)
    with open(path) as file:
        for row in csv.DictReader(file):
            runs[row["condition"], row["case"]].append(
                (float(row["estimate"]), float(row["standard_error"]), int(row["degrees_of_freedom"])))
    rng = np.random.default_rng(1954)
    print("| condition | runs | cases | cases with Q's p < 0.05: chi-square / calibrated "
          "| median between-run SD / within-run SE "
          "| the widest case: between-run SD, within-run SE |")
    print("|---|---:|---:|---:|---:|---|")
    for condition in sorted({c for c, _ in runs}):
        rows = {case: v for (c, case), v in runs.items() if c == condition}
        heterogeneous, calibrated, ratios, widest = 0, 0, [], None
        for case, values in rows.items():
            m = np.array([v[0] for v in values])
            se = np.array([v[1] for v in values])
            df = np.array([v[2] for v in values])
            w = 1 / se**2
            q = float((w * (m - (w * m).sum() / w.sum())**2).sum())
            heterogeneous += stats.chi2.sf(q, len(m) - 1) < 0.05
            calibrated += calibrated_p(q, se, df, rng) < 0.05
            between, within = float(np.std(m, ddof=1)), float(np.sqrt(np.mean(se**2)))
            ratios.append(between / within)
            if widest is None or between / within > widest[1] / widest[2]:
                widest = (case, between, within)
        count = len(next(iter(rows.values())))
        print(f"| {condition} | {count} | {len(rows)} | {heterogeneous} / {calibrated} of {len(rows)} "
              f"| {np.median(ratios):.2f} | `{widest[0]}`: {widest[1]:.2%}, {widest[2]:.2%} |")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--extract":
        extract(sys.argv[2:])
    elif len(sys.argv) == 2:
        check(sys.argv[1])
    else:
        sys.exit(__doc__)
