#!/usr/bin/env python3
"""Calibrates `bench history --changes` on real runs: false change points in flat histories of one
build, and how often a known step is found in histories of two builds, per case.

usage: simulate_history.py --bench PATH [--series N] [--length N] [--before N] [--after N] [--block N]
                           [--threshold PCT] [--runs history-runs.csv] [--stepped PCT]
                           --flat NAME [--flat NAME ...] [--step BASE SLOW [--inject PCT SUBSTRING]]

NAME, BASE and SLOW are histories of history-runs.csv (extract_history.py made it: each run's
fastest sample per case, runs in time order). BASE and SLOW are runs of two builds, the second
slower in some cases by a known amount: each case's step is the ratio of its medians over the runs.
With `--inject PCT SUBSTRING`, SLOW is BASE itself made PCT% slower in the cases whose name holds
SUBSTRING: real noise, a step of known size. A case counts as stepped from `--stepped` percent (3).

Each simulated history is written as a history.csv and given to the shipped `bench history
--changes --format csv`, so what is calibrated is the code that runs, not a copy of it. Flat
histories: the real sequence itself, then `--series` histories of `--length` runs drawn as a
circular block bootstrap (blocks of `--block` neighbouring runs, which keeps bursts of contention
that span runs together). Step histories: the real sequences of both builds one after the other,
then `--series` histories of `--before` runs of BASE followed by `--after` (as many by default) of
SLOW, each drawn the same way. A step counts as found when a change point of the right sign lies within 2 runs of its place.
"""
import argparse, collections, csv, os, random, statistics, subprocess, sys, tempfile

# The summary columns of a history (schema 2); the analysis reads ns_min, the rest only has to parse.
HEADER = ("schema,run_id,timestamp,commit,build,backend,operation,size,threads,status,samples,iterations,"
          "ns_median,ns_p10,ns_p90,ns_min,ns_mean,ns_stddev,cv,ops_per_sec,mb_per_sec,cpu,cpu_flags,cores,kernel,"
          "swift,library,error,target_cpu,allocs_per_op,metric,instructions_per_op").split(",")


def read_histories(path):
    """{history: [run, ...]}, each run {case: fastest ns/op}, in time order."""
    histories = collections.defaultdict(lambda: collections.defaultdict(dict))
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            histories[row["history"]][int(row["run"])][row["case"]] = float(row["fastest_ns"])
    return {name: [runs[number] for number in sorted(runs)] for name, runs in histories.items()}


def block_bootstrap(pool, length, block, rng):
    drawn = []
    while len(drawn) < length:
        start = rng.randrange(len(pool))
        drawn += [pool[(start + i) % len(pool)] for i in range(block)]
    return drawn[:length]


def changes(bench, runs, scratch, threshold):
    """Writes `runs` as a history, one commit per run, and returns bench's change points by case."""
    with open(os.path.join(scratch, "history.csv"), "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\r\n")
        writer.writerow(HEADER)
        for number, run in enumerate(runs):
            stamp = f"2026-01-01T{number // 60:02d}:{number % 60:02d}:00.000Z"
            commit = f"c{number:06d}"
            run_id = f"20260101T{number:06d}.000Z-{commit}-00000000"
            for case, fastest in run.items():
                operation, backend, size = case.split("/")
                figure = f"{fastest:.3f}"
                values = dict(schema="2", run_id=run_id, timestamp=stamp, commit=commit, build="release",
                              backend=backend, operation=operation, size=size, threads="1", status="ok",
                              samples="90", iterations="1000", ns_median=figure, ns_p10=figure, ns_p90=figure,
                              ns_min=figure, ns_mean=figure, ns_stddev="0.000", cv="0.00000",
                              ops_per_sec=f"{1e9 / fastest:.1f}", mb_per_sec="", cpu="AMD EPYC",
                              cpu_flags="sha_ni avx2", cores="2", kernel="6.1.0", swift="6.3.1", library="",
                              error="", target_cpu="x86-64", allocs_per_op="0.000000", metric="time",
                              instructions_per_op="")
                writer.writerow([values[column] for column in HEADER])
    command = [bench, "history", "--changes", "--format", "csv", "--output", scratch]
    if threshold is not None:
        command += ["--threshold", str(threshold)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode not in (0, 1):
        sys.exit(f"bench failed ({result.returncode}): {result.stderr}")
    found = collections.defaultdict(list)
    for row in csv.DictReader(result.stdout.splitlines()):
        if row["status"] in ("regressed", "improved"):
            index = int(row["first_run_after"].split("T")[1][:6])
            found[row["case"]].append((index, float(row["change_pct"])))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--flat", action="append", default=[])
    parser.add_argument("--step", nargs=2)
    parser.add_argument("--series", type=int, default=200)
    parser.add_argument("--length", type=int, default=30)
    parser.add_argument("--before", type=int, default=12)
    parser.add_argument("--after", type=int)
    parser.add_argument("--block", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threshold", type=float)
    parser.add_argument("--inject", nargs=2, metavar=("PERCENT", "SUBSTRING"))
    parser.add_argument("--stepped", type=float, default=3)
    parser.add_argument("--runs", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "history-runs.csv"))
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    histories = read_histories(arguments.runs)
    base = histories[arguments.step[0]] if arguments.step else []
    slow = histories[arguments.step[1]] if arguments.step else []
    if arguments.inject:
        # The second build is the first, made slower by PERCENT in the cases whose name holds SUBSTRING.
        factor, part = 1 + float(arguments.inject[0]) / 100, arguments.inject[1]
        slow = [{c: v * factor if part in c else v for c, v in run.items()} for run in base]
    scratch = tempfile.mkdtemp(prefix="simulate-history-")

    def found(runs):
        return changes(arguments.bench, runs, scratch, arguments.threshold)

    for source in arguments.flat:
        pool = histories[source]
        cases = sorted(set.intersection(*(set(run) for run in pool)))
        real = found(pool)
        flagged = [case for case in cases if real.get(case)]
        print(f"\n## Flat: {source}, {len(pool)} runs\n")
        print(f"The real sequence: {len(flagged)} of {len(cases)} series with a change point"
              + (f" ({', '.join(flagged)})" if flagged else ""))
        counts = collections.Counter()
        for _ in range(arguments.series):
            points = found(block_bootstrap(pool, arguments.length, arguments.block, rng))
            counts.update(case for case in cases if points.get(case))
        rates = sorted(((counts[c] / arguments.series, c) for c in cases), reverse=True)
        mean = sum(r for r, _ in rates) / len(rates)
        print(f"{arguments.series} histories of {arguments.length} runs (blocks of {arguments.block}): "
              f"series with a false change point {100 * mean:.2f}% on average over cases, "
              f"worst {', '.join(f'{c} {100 * r:.1f}%' for r, c in rates[:3])}")

    if not arguments.step:
        return
    cases = sorted(set.intersection(*(set(run) for run in base + slow)))
    step = {c: statistics.median(r[c] for r in slow) / statistics.median(r[c] for r in base) - 1 for c in cases}
    # Within rounding of the ratio: an injected step of 2% is 2%.
    stepped = [c for c in cases if abs(step[c]) >= arguments.stepped / 100 - 1e-9]
    flat = [c for c in cases if abs(step[c]) < 0.01]
    print(f"\n## Step: {len(base)} runs of {arguments.step[0]}, then {len(slow)} of {arguments.step[1]}\n")
    print(f"{len(stepped)} cases step by at least {arguments.stepped:g}%, {len(flat)} by less than 1%.")

    def tally(points, place, hits, false):
        for case in stepped:
            if any(abs(index - place) <= 2 and (change > 0) == (step[case] > 0) for index, change in points.get(case, [])):
                hits[case] += 1
        for case in flat:
            if points.get(case):
                false[case] += 1

    hits, false = collections.Counter(), collections.Counter()
    tally(found(base + slow), len(base), hits, false)
    print(f"The real sequences: step found in {sum(hits.values())} of {len(stepped)} stepped series; "
          f"{sum(false.values())} of {len(flat)} unstepped series with a change point")
    after = arguments.after or arguments.before
    hits, false = collections.Counter(), collections.Counter()
    for _ in range(arguments.series):
        runs = (block_bootstrap(base, arguments.before, arguments.block, rng)
                + block_bootstrap(slow, after, arguments.block, rng))
        tally(found(runs), arguments.before, hits, false)
    print(f"\n{arguments.series} histories of {arguments.before} + {after} runs:\n")
    print("| case | step | found within 2 runs |")
    print("|---|---|---|")
    for case in sorted(stepped, key=lambda c: step[c]):
        print(f"| {case} | {100 * step[case]:+.1f}% | {100 * hits[case] / arguments.series:.1f}% |")
    rates = sorted(((false[c] / arguments.series, c) for c in flat), reverse=True)
    print(f"\nUnstepped series with a change point: {100 * sum(r for r, _ in rates) / len(rates):.2f}% on average, "
          f"worst {', '.join(f'{c} {100 * r:.1f}%' for r, c in rates[:3])}")


if __name__ == "__main__":
    main()
