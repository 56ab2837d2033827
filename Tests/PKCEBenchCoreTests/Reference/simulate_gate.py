#!/usr/bin/env python3
"""Simulates bench ab's regression gate on real pair figures of equal builds.

Each file holds the pair figures (the median log ratio of a pair's turns) of one real `bench ab`
of a build against a byte-identical copy: every case of the default suite, in one look of many
pairs. A simulated run draws pairs with replacement from such a file, whole pairs at a time (every
case of a drawn pair together, as one pair of processes measures them, so the cases' dependence
is kept), and runs the gate on them: looks of 20 pairs, up to 4 (--looks), the cases decided at a
look not looked at again. With a change added to one case, it measures the power.

The gate is written here again, from its description in the documentation (VerdictStatistics.md in the
PKCEBenchKit catalog), with scipy's t distribution: an independent statement of the rule that
the Swift code (SequentialGate) implements, which the Swift tests simulate the same way. Run it
from this folder with numpy and scipy:

    python3 simulate_gate.py aa-pairs-quiet.csv aa-pairs-busy.csv --runs 1000 [--threshold 0.5]
    python3 simulate_gate.py FILES --per-case --runs 2000 [--looks 3] [--run-scatter harmless-run-estimates.csv]

The pair files come from `bench ab` output directories:

    python3 simulate_gate.py --extract RESULTS_DIR > aa-pairs-NAME.csv
"""
import argparse
import csv
import math
from collections import defaultdict

import numpy as np
from scipy import stats


def holm(p, family=0):
    """Holm's adjusted p-values; the family's other members, not tested, count with p = 1."""
    size = max(family, len(p))
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(len(p))
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (size - rank) * p[index]))
        adjusted[index] = running
    return adjusted


def estimate(x, trim):
    """The trimmed mean, Yuen's standard error and its degrees of freedom (a plain mean with trim 0)."""
    x = np.sort(x)
    n = len(x)
    g = int(math.floor(trim * n))
    w = x.copy()
    w[:g] = x[g]
    w[n - g:] = x[n - g - 1]
    se = np.std(w, ddof=1) / ((1 - 2 * trim) * math.sqrt(n))
    return x[g:n - g].mean(), se, max(n - 2 * g - 1, 1)


def gate(rows, per_look, looks, trim, threshold=0.01, alpha=0.01, confidence=0.95):
    """The verdicts of one run: R regressed, U unchanged or improved, I inconclusive; and the pairs used."""
    cases = rows.shape[1]
    verdict = [None] * cases
    pairs = [0] * cases
    limit = math.log1p(threshold)
    level, tail = alpha / looks, (1 - confidence) / looks
    for look in range(1, looks + 1):
        open_ = [c for c in range(cases) if verdict[c] is None]
        if not open_:
            break
        estimates = [estimate(rows[:look * per_look, c], trim) for c in open_]
        p = np.array([stats.t.sf(m / s, df) if s > 0 else float(m <= 0) for m, s, df in estimates])
        adjusted = holm(p, cases)
        for j, c in enumerate(open_):
            m, s, df = estimates[j]
            pairs[c] = look * per_look
            if adjusted[j] < level and m >= limit:
                verdict[c] = "R"
            elif m + stats.t.isf(tail, df) * s < limit:
                verdict[c] = "U"
            elif look == looks:
                verdict[c] = "I"
    return verdict, pairs


def load(path):
    figures = defaultdict(dict)
    with open(path) as file:
        for row in csv.DictReader(file):
            figures[row["case"]][int(row["pair"])] = float(row["log_ratio"])
    cases = sorted(figures)
    count = min(len(figures[c]) for c in cases)
    return cases, np.array([[figures[c][p] for c in cases] for p in range(count)])


def extract(directory):
    """Prints the pair figures of a bench ab output directory as CSV: case, pair, log_ratio."""
    def samples(name):
        taken = defaultdict(lambda: defaultdict(list))
        with open(f"{directory}/{name}") as file:
            for row in csv.DictReader(file):
                case = f"{row['operation']}/{row['backend']}/{row['size']}"
                taken[case][int(row["process"])].append((int(row["sample"]), float(row["ns_per_op"])))
        return taken
    baseline, current = samples("ab-baseline.samples.csv"), samples("ab-current.samples.csv")
    print("case,pair,log_ratio")
    for case in sorted(baseline):
        for pair in sorted(baseline[case]):
            old = np.array([value for _, value in sorted(baseline[case][pair])])
            new = np.array([value for _, value in sorted(current[case][pair])])
            print(f"{case},{pair},{np.median(np.log(new / old)):.7g}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--extract", metavar="RESULTS_DIR")
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7636)
    parser.add_argument("--threshold", type=float, default=1.0, help="in percent, as bench ab's --threshold")
    parser.add_argument("--looks", type=int, default=4, help="the most looks of 20 pairs, as bench ab's default")
    parser.add_argument("--per-case", action="store_true",
                        help="the gate alone: each case's own rate of false regressions, as measured, centred "
                             "and sign-flipped")
    parser.add_argument("--run-scatter", metavar="ESTIMATES_CSV",
                        help="with --per-case, a fourth null: centred, plus each case's run-to-run offset "
                             "measured in these runs (check_run_scatter.py)")
    options = parser.parse_args()
    if options.extract:
        extract(options.extract)
        return
    if options.per_case:
        per_case(options)
        return
    rng = np.random.default_rng(options.seed)
    threshold = options.threshold / 100
    print(f"{options.runs} simulated runs per row, threshold {options.threshold:g}%, alpha 0.01, looks of 20 pairs")
    print()
    print("| pairs from | estimator | looks | runs with a false regression | runs decided (exit 0) "
          "| pairs per case | +1% caught | +1.5% caught | +2% caught |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for path in options.files:
        cases, pool = load(path)
        for trim, name in [(0.0, "mean"), (0.1, "10% trimmed"), (0.2, "20% trimmed")]:
            for looks in sorted({1, 3, options.looks}):
                false = decided = 0
                pairs_used = []
                caught = {0.01: 0, 0.015: 0, 0.02: 0}
                for run in range(options.runs):
                    rows = pool[rng.integers(0, len(pool), 20 * looks)]
                    verdict, pairs = gate(rows, 20, looks, trim, threshold)
                    false += "R" in verdict
                    decided += "I" not in verdict and "R" not in verdict
                    pairs_used.append(np.mean(pairs))
                    target = run % len(cases)
                    for change in caught:
                        shifted = rows.copy()
                        shifted[:, target] += math.log1p(change)
                        caught[change] += gate(shifted, 20, looks, trim, threshold)[0][target] == "R"
                n = options.runs
                print(f"| {path} ({len(pool)} pairs) | {name} | {looks} × 20 | {false / n:.1%} | {decided / n:.1%} "
                      f"| {np.mean(pairs_used):.1f} | {caught[0.01] / n:.1%} | {caught[0.015] / n:.1%} "
                      f"| {caught[0.02] / n:.1%} |")


def per_case(options):
    """The gate (20% trimmed, looks of 20) on each file, per case: how often each case alone is called
    regressed. Three nulls: the pairs as measured (the recording's own chance offset in a case taken
    for the truth); centred (each case's 20% trimmed mean subtracted: the recording's offset removed,
    its spread and tails kept, as a bootstrap test resamples under its null); and sign-flipped (each
    drawn pair's figures multiplied by a random sign, every case of the pair by the same one, so that
    their dependence is kept: an exact null with the pairs' own tails, as a sign-flip test makes one).
    With --run-scatter, a fourth: centred, and every simulated run's case moved by an offset drawn
    from a normal with the largest run-to-run spread beyond the standard errors that case showed in
    repeated real runs of any harmless change, the part of the noise one run's pairs cannot see."""
    rng = np.random.default_rng(options.seed)
    threshold = options.threshold / 100
    looks = options.looks
    offsets = run_offsets(options.run_scatter) if options.run_scatter else None
    print(f"{options.runs} simulated runs per row, threshold {options.threshold:g}%, alpha 0.01, "
          f"20% trimmed, looks of 20 pairs, up to {looks}")
    print()
    print("| pairs from | null | runs with a false regression | runs decided (exit 0) | pairs per case "
          f"| the most-flagged case | its rate | cases above 1% | t test at 1%, 20 / {20 * looks} pairs: the worst case |")
    print("|---|---|---:|---:|---:|---|---:|---:|---|")
    for path in options.files:
        cases, pool = load(path)
        nulls = ["as measured", "centred", "sign-flipped"] + (["centred, run offsets"] if offsets is not None else [])
        for null in nulls:
            source = pool if null in ("as measured", "sign-flipped") else pool - stats.trim_mean(pool, 0.2, axis=0)
            spread = np.array([offsets.get(case, 0.0) for case in cases]) if null == "centred, run offsets" else None
            flagged = np.zeros(len(cases))
            # The one-sided t test alone, uncorrected, at 1%: how often each case rejects "not slower".
            rejected = {20: np.zeros(len(cases)), 20 * looks: np.zeros(len(cases))}
            any_false = decided = 0
            pairs_used = []
            for _ in range(options.runs):
                rows = source[rng.integers(0, len(source), 20 * looks)]
                if null == "sign-flipped":
                    rows = rows * rng.choice([-1.0, 1.0], size=(len(rows), 1))
                if spread is not None:
                    rows = rows + rng.normal(0.0, 1.0, len(cases)) * spread
                verdict, pairs = gate(rows, 20, looks, 0.2, threshold)
                for count in rejected:
                    for c in range(len(cases)):
                        m, se, df = estimate(rows[:count, c], 0.2)
                        rejected[count][c] += se > 0 and stats.t.sf(m / se, df) < 0.01
                regressed = np.array([v == "R" for v in verdict])
                flagged += regressed
                any_false += regressed.any()
                decided += "I" not in verdict and not regressed.any()
                pairs_used.append(np.mean(pairs))
            n = options.runs
            worst = int(np.argmax(flagged))
            print(f"| {path} ({len(pool)} pairs) | {null} | {any_false / n:.1%} | {decided / n:.1%} "
                  f"| {np.mean(pairs_used):.1f} | `{cases[worst]}` | {flagged[worst] / n:.2%} "
                  f"| {int((flagged / n > 0.01).sum())} of {len(cases)} "
                  f"| {rejected[20].max() / n:.1%} / {rejected[20 * looks].max() / n:.1%} |")


def run_offsets(path):
    """Each case's run-to-run standard deviation beyond its runs' standard errors, the largest over
    the conditions of check_run_scatter.py's file: sqrt(max(0, var(estimates) - mean(se²)))."""
    runs = defaultdict(list)
    with open(path) as file:
        for row in csv.DictReader(file):
            runs[row["condition"], row["case"]].append((float(row["estimate"]), float(row["standard_error"])))
    offsets = defaultdict(float)
    for (_, case), values in runs.items():
        estimates = np.array([m for m, _ in values])
        errors = np.array([se for _, se in values])
        extra = math.sqrt(max(0.0, float(np.var(estimates, ddof=1) - np.mean(errors**2))))
        offsets[case] = max(offsets[case], extra)
    return offsets


if __name__ == "__main__":
    main()
