#!/usr/bin/env python3
"""Apache Otava's change points in series, for `OtavaAgreementTests`.

usage: otava_change_points.py MIN_MAGNITUDE MAX_PVALUE < series.csv

Reads `series,index,value` rows (a header line first; each series' values in index order) and
prints `series,index` for each change point that Otava (PyPI apache-otava) finds: its
`compute_change_points`, the E-divisive means of Hunter (Fleming et al., ICPE 2023) with Student's
t-test as the significance test and the relative change of the means as the magnitude.
"""
import collections, csv, sys

from otava.analysis import compute_change_points

minimum, pvalue = float(sys.argv[1]), float(sys.argv[2])
series = collections.defaultdict(list)
for row in csv.DictReader(sys.stdin):
    series[row["series"]].append((int(row["index"]), float(row["value"])))
print("series,index")
for name, points in series.items():
    values = [value for _, value in sorted(points)]
    found, _ = compute_change_points(values, window_len=50, max_pvalue=pvalue, min_magnitude=minimum)
    for change_point in found:
        print(f"{name},{change_point.index}")
