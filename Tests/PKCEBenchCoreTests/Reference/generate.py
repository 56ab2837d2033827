#!/usr/bin/env python3
"""Writes statistics.json: reference values from scipy for PKCEBench's statistics tests.

Run it from this folder with scipy installed (`pip install scipy`); the tests read the committed
JSON and never run Python. The inputs are fixed, so the file only changes with scipy itself.
"""
import json
import math

import numpy as np
import scipy
from scipy import stats
from scipy.stats import mstats

rng = np.random.default_rng(7636)

# Student's t: two-sided tail probabilities and critical values, integer and Welch-like degrees.
t_tails = []
for df in [1, 2, 3.5, 4, 9, 19, 29.25, 100, 1000]:
    for t in [0, 0.1, 0.5, 1, 1.96, 2.5, 4, 6.5, 12]:
        t_tails.append({"df": df, "t": t, "tail": float(2 * stats.t.sf(t, df))})
t_critical = []
for df in [1, 2, 3.5, 4, 9, 19, 29.25, 100, 1000]:
    for tail in [0.5, 0.1, 0.05, 0.01, 0.01 / 56, 1e-6]:
        t_critical.append({"df": df, "tail": tail, "t": float(stats.t.isf(tail / 2, df))})


def bounds(estimate, standard_error, df):
    """The one-sided 95% bounds, lower and upper, as changes."""
    margin = stats.t.isf(0.05, df) * standard_error
    return math.exp(estimate - margin) - 1, math.exp(estimate + margin) - 1


# The paired estimate: the 20% trimmed mean of log ratios with Yuen's standard error, and one-sided
# p-values, with heavy-tailed data among the cases (a slow pair or two).
paired = []
for n, shift, spread, outliers in [
    (2, 0.01, 0.02, []), (5, 0.0, 0.01, []), (10, 0.02, 0.01, [0.3]), (20, -0.005, 0.004, [-0.2, 0.15]),
    (20, 0.01, 0.03, []), (60, 0.001, 0.002, [0.05, 0.08, -0.04]),
]:
    ratios = np.concatenate([rng.normal(shift, spread, n - len(outliers)), outliers])
    g = int(math.floor(0.2 * n))
    estimate = stats.trim_mean(ratios, 0.2)
    se = float(mstats.trimmed_stde(ratios, limits=(0.2, 0.2)))
    df = n - 2 * g - 1 if n - 2 * g > 1 else 1
    low, high = bounds(estimate, se, df)
    paired.append({
        "log_ratios": ratios.tolist(), "change": math.exp(estimate) - 1, "standard_error": se, "df": df,
        "p_slower": float(stats.t.sf(estimate / se, df)), "p_faster": float(stats.t.cdf(estimate / se, df)),
        "lower": low, "upper": high,
    })

# The independent estimate: Welch's t-test on the logs of each process's value.
independent = []
for nx, ny, shift in [(5, 5, 0.0), (5, 5, 0.05), (3, 7, 0.02), (2, 2, 0.1), (10, 4, -0.03)]:
    x = 100 * np.exp(rng.normal(0, 0.01, nx))
    y = 100 * np.exp(rng.normal(shift, 0.02, ny))
    lx, ly = np.log(x), np.log(y)
    test = stats.ttest_ind(ly, lx, equal_var=False, alternative="greater")
    vx, vy = np.var(lx, ddof=1) / nx, np.var(ly, ddof=1) / ny
    df = (vx + vy) ** 2 / (vx**2 / (nx - 1) + vy**2 / (ny - 1))
    low, high = bounds(np.mean(ly) - np.mean(lx), math.sqrt(vx + vy), df)
    independent.append({
        "baseline": x.tolist(), "current": y.tolist(), "change": math.exp(np.mean(ly) - np.mean(lx)) - 1,
        "p_slower": float(test.pvalue), "lower": low, "upper": high,
    })


# Holm's step-down adjustment (Holm 1979), as statsmodels' multipletests(method="holm") gives it.
def holm(p):
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(len(p))
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[index]))
        adjusted[index] = running
    return adjusted.tolist()


holm_cases = []
for p in [[0.01, 0.04, 0.03, 0.005], [0.5, 0.5, 0.0001], [1e-6] * 3 + [0.2] * 5, [0.9]]:
    holm_cases.append({"p_values": p, "adjusted": holm(np.array(p))})

with open("statistics.json", "w") as file:
    json.dump({
        "source": f"scipy {scipy.__version__}, numpy {np.__version__}: generate.py in this folder",
        "t_tails": t_tails, "t_critical": t_critical, "paired": paired, "independent": independent,
        "holm": holm_cases,
    }, file, indent=1)
    file.write("\n")
