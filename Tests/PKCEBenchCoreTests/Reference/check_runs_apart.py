#!/usr/bin/env python3
"""bench compare on real runs of one build made apart, as ComparingRuns.md quotes it.

usage: check_runs_apart.py BENCH RUNS_DIR OUT_DIR [--no-history]

RUNS_DIR holds runs of one build (<id>.csv, <id>.samples.csv, from `bench run --output RUNS_DIR`,
run in a clean checkout of one commit) and the history.csv they appended to. The script writes
scaled copies to OUT_DIR and runs BENCH compare on:
- ten disjoint pairs of runs, the current run scaled by +2%, and by +3%, with a log-normal 1% per
  case (exit 1 counts as a false alarm);
- the same pairs scaled by -2% with one case +10% on top (sha256/swift/1024, then
  challenge/openssl/43, the case that moves most between runs);
- the same pairs with the swift and crypto cases 8% slower: half the cases, which moves the median;
- each run against the next (minutes apart), and every pair of runs (false calls per case).
The history is RUNS_DIR/history.csv (bench compare leaves the two compared runs out of it), or
none with --no-history.
"""
import csv, os, random, subprocess, sys, math, itertools, collections, json

bench, runs_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
no_history = "--no-history" in sys.argv
os.makedirs(out, exist_ok=True)
runs = sorted(f[:-4] for f in os.listdir(runs_dir)
              if f.endswith(".csv") and not f.endswith(".samples.csv") and f[0].isdigit())
history = os.path.join(runs_dir, "history.csv")
empty_history = os.path.join(out, "empty-history.csv")
with open(history) as f:
    header = f.readline()
open(empty_history, "w").write(header)

def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))

def write(path, rows, fields):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)

def case(row):
    return f"{row['operation']}/{row['backend']}/{row['size']}"

def scaled_copy(run, factors, name):
    """A copy of run whose case c is slower by factors[c] (every sample and figure)."""
    summary = read(os.path.join(runs_dir, run + ".csv"))
    fields = list(summary[0].keys())
    for row in summary:
        f = factors[case(row)]
        for col in ["ns_median", "ns_p10", "ns_p90", "ns_min", "ns_mean", "ns_stddev"]:
            if row[col]:
                row[col] = "%.3f" % (float(row[col]) * f)
        for col in ["ops_per_sec", "mb_per_sec"]:
            if row[col]:
                row[col] = "%.1f" % (float(row[col]) / f)
    samples = read(os.path.join(runs_dir, run + ".samples.csv"))
    sfields = list(samples[0].keys())
    for row in samples:
        row["ns_per_op"] = "%.3f" % (float(row["ns_per_op"]) * factors[case(row)])
    path = os.path.join(out, name + ".csv")
    write(path, summary, fields)
    write(os.path.join(out, name + ".samples.csv"), samples, sfields)
    return path

def compare(base, cur):
    args = [bench, "compare", base, cur, "--format", "csv", "--history", empty_history if no_history else history]
    p = subprocess.run(args, capture_output=True, text=True)
    verdicts = {}
    for row in csv.DictReader(p.stdout.splitlines()):
        verdicts[f"{row['operation']}/{row['backend']}/{row['size']}"] = row["verdict"]
    return p.returncode, verdicts, p.stderr

cases = sorted({case(r) for r in read(os.path.join(runs_dir, runs[0] + ".csv"))})
rng = random.Random(46)
report = collections.OrderedDict()

# Disjoint pairs for the 10-comparison checks: (0,1), (2,3), ...
pairs = [(runs[2 * k], runs[2 * k + 1]) for k in range(min(10, len(runs) // 2))]

def check_scaled(shift, target=None, extra=1.0):
    rows = []
    for k, (a, b) in enumerate(pairs):
        factors = {c: (1 + shift) * math.exp(rng.gauss(0, 0.01)) for c in cases}
        if target:
            factors[target] *= extra
        path = scaled_copy(b, factors, f"scaled-{shift:+.2f}-{k}")
        code, verdicts, err = compare(os.path.join(runs_dir, a + ".csv"), path)
        regressed = sorted(c for c, v in verdicts.items() if v in ("regressed", "failed-in-current"))
        inconclusive = sum(v == "inconclusive" for v in verdicts.values())
        rows.append({"pair": k, "exit": code, "regressed": regressed, "inconclusive": inconclusive})
    return rows

report["scaled +2%"] = check_scaled(0.02)
report["scaled +3%"] = check_scaled(0.03)
target = "sha256/swift/1024"
report["scaled -2%, sha256/swift/1024 +10%"] = check_scaled(-0.02, target, 1.10)
target2 = "challenge/openssl/43"
report["scaled -2%, challenge/openssl/43 +10%"] = check_scaled(-0.02, target2, 1.10)

# A change that moves half the cases moves the median with it: swift and crypto 8% slower.
def check_half():
    rows = []
    for k, (a, b) in enumerate(pairs):
        factors = {c: 1.08 if c.split("/")[1] in ("swift", "crypto") else 1.0 for c in cases}
        path = scaled_copy(b, factors, f"half-{k}")
        code, verdicts, err = compare(os.path.join(runs_dir, a + ".csv"), path)
        rows.append({"pair": k, "exit": code,
                     "regressed": sum(v == "regressed" for v in verdicts.values()),
                     "improved": sum(v == "improved" for v in verdicts.values()),
                     "unchanged among the slowed": sum(v == "unchanged" and c.split("/")[1] in ("swift", "crypto")
                                                       for c, v in verdicts.items()),
                     "inconclusive": sum(v == "inconclusive" for v in verdicts.values())})
    return rows

report["swift and crypto +8%"] = check_half()

# Plain same-build comparisons: consecutive runs (minutes apart), and every pair for per-case rates.
plain = []
for a, b in zip(runs, runs[1:]):
    code, verdicts, err = compare(os.path.join(runs_dir, a + ".csv"), os.path.join(runs_dir, b + ".csv"))
    plain.append({"base": a[:24], "current": b[:24], "exit": code,
                  "regressed": sorted(c for c, v in verdicts.items() if v == "regressed"),
                  "improved": sorted(c for c, v in verdicts.items() if v == "improved"),
                  "inconclusive": sum(v == "inconclusive" for v in verdicts.values()),
                  "cases": len(verdicts)})
report["plain consecutive"] = plain

per_case = collections.Counter()
per_case_inc = collections.Counter()
total = 0
exits = collections.Counter()
all_pairs = list(itertools.combinations(runs, 2))
for a, b in all_pairs:
    code, verdicts, err = compare(os.path.join(runs_dir, a + ".csv"), os.path.join(runs_dir, b + ".csv"))
    exits[code] += 1
    total += 1
    for c, v in verdicts.items():
        if v in ("regressed", "improved"):
            per_case[c] += 1
        if v == "inconclusive":
            per_case_inc[c] += 1
report["all pairs"] = {"pairs": total, "exits": dict(exits),
                       "false calls per case (regressed or improved)": dict(per_case.most_common()),
                       "inconclusive per case": dict(per_case_inc.most_common(12)),
                       "share inconclusive": sum(per_case_inc.values()) / (total * len(cases))}
json.dump(report, open(os.path.join(out, "report.json"), "w"), indent=1)
for name, value in report.items():
    print("##", name)
    if isinstance(value, list):
        for row in value:
            print("  ", row)
    else:
        print("  ", value)
