#!/usr/bin/env python3
"""Calibrates `bench history --changes` on real runs: false change points in flat histories of one
build, and how often a known step is found in histories of two builds, per case.

usage: simulate_history.py --bench PATH [--series N] [--length N] [--before N] [--after N] [--block N]
                           [--threshold PCT] [--runs history-runs.csv] [--stepped PCT]
                           --flat NAME [--flat NAME ...] [--step BASE SLOW [--inject PCT SUBSTRING]]
       simulate_history.py --bench PATH --months POOL [--histories N] [--length N] [--drift PCT]
                           [--shift PCT REGEX RUN ...] [--environment COLUMN VALUE RUN ...] [--nightly]
                           [--otava] [--check] [--jobs N] [--seed N] [--verbose]

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

`--months POOL` simulates a history kept for months: `--histories` histories of `--length` runs,
each run a whole real run of POOL drawn at random (so run-level noise stays real), multiplied by
each case's own random walk of `--drift` percent per run (Gaussian steps) and by the shifts
`--shift PCT REGEX RUN` (the cases whose name matches REGEX, PCT percent slower from run RUN on);
`--environment COLUMN VALUE RUN` records another kernel or Swift from run RUN on. An alert is false
when the noiseless signal (drift and shifts) steps by under 1% at it: the mean of its 5 runs from
the reported point against the 5 before. With `--nightly`, each history is analysed night by night
as the nightly recipe does (`--since` the newest alert's first run after), and alerts are counted
per night, with an exact one-sided 95% Poisson bound on false alerts per night (scipy). With
`--otava`, each history's last analysis is set beside Apache Otava's (PyPI apache-otava, as
OtavaAgreementTests runs it: window 50, p <= 0.05, 2% magnitude) on the same series, the levels the
analysis compares (each run divided by its host factor from the canaries), with environment steps
and Otava's points within 2 runs of an environment change left out. Histories run in `--jobs`
processes; `--verbose` prints each false alert, each shifted case not found, and each disagreement
with Otava, to standard error. `--check` exits 1, with a line for each, when a history has a false
alert, when the shifted cases are found within 2 runs in under 95% of histories on average or other
series have a change point in over 1%, or, with `--environment`, when a history alerts, the moved
series have their environment step named in under 95% on average, or the series it did not move
have one in over 1%: a small simulation of a fixed
seed, in `.ci/run`, checks the shipped analysis against real noise on every change.
"""
import argparse, collections, csv, math, multiprocessing, os, random, re, shutil, statistics, subprocess, sys, tempfile

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


def run_id(number):
    return f"20260101T{number:06d}.000Z-c{number:06d}-00000000"


def changes(bench, runs, scratch, threshold, environments=None, since=None):
    """Writes `runs` as a history, one commit per run, and returns bench's change points by case:
    (index of the first run after, change %, alert, environment change). `environments[i]`
    overrides run i's columns (`kernel`, `swift`); `since` is a run number for `--since`."""
    with open(os.path.join(scratch, "history.csv"), "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\r\n")
        writer.writerow(HEADER)
        for number, run in enumerate(runs):
            stamp = f"2026-01-01T{number // 60:02d}:{number % 60:02d}:00.000Z"
            commit = f"c{number:06d}"
            for case, fastest in run.items():
                operation, backend, size = case.split("/")
                figure = f"{fastest:.3f}"
                values = dict(schema="2", run_id=run_id(number), timestamp=stamp, commit=commit, build="release",
                              backend=backend, operation=operation, size=size, threads="1", status="ok",
                              samples="90", iterations="1000", ns_median=figure, ns_p10=figure, ns_p90=figure,
                              ns_min=figure, ns_mean=figure, ns_stddev="0.000", cv="0.00000",
                              ops_per_sec=f"{1e9 / fastest:.1f}", mb_per_sec="", cpu="AMD EPYC",
                              cpu_flags="sha_ni avx2", cores="2", kernel="6.1.0", swift="6.3.1", library="",
                              error="", target_cpu="x86-64", allocs_per_op="0.000000", metric="time",
                              instructions_per_op="")
                values.update((environments or {}).get(number, {}))
                writer.writerow([values[column] for column in HEADER])
    command = [bench, "history", "--changes", "--format", "csv", "--output", scratch]
    if threshold is not None:
        command += ["--threshold", str(threshold)]
    if since is not None:
        command += ["--since", run_id(since)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode not in (0, 1):
        sys.exit(f"bench failed ({result.returncode}): {result.stderr}")
    found = collections.defaultdict(list)
    for row in csv.DictReader(result.stdout.splitlines()):
        if row["status"] in ("regressed", "improved"):
            index = int(row["first_run_after"].split("T")[1][:6])
            found[row["case"]].append(
                (index, float(row["change_pct"]), row["alert"] == "yes", row["environment_change"]))
    return found


def true_step(signal, index):
    """The noiseless change at `index`: the mean of the 5 runs from it against the 5 before."""
    after, before = signal[index:index + 5], signal[max(0, index - 5):index]
    return math.exp(sum(after) / len(after) - sum(before) / len(before)) - 1


def is_canary(case):
    """SHA-256 by OpenSSL and libsodium: ChangePointAnalysis.isCanary."""
    operation, backend, _ = case.split("/")
    return operation == "sha256" and backend in ("openssl", "sodium")


def levels(runs, environments):
    """Each case's series as the analysis compares it: every run divided by its host factor, the median
    over the canaries of how far each lies from its own median over the runs of one environment."""
    environment = [tuple(sorted(environments.get(r, {}).items())) for r in range(len(runs))]
    medians = {}
    for case in (c for c in runs[0] if is_canary(c)):
        by_environment = collections.defaultdict(list)
        for r, run in enumerate(runs):
            by_environment[environment[r]].append(math.log(run[case]))
        medians[case] = {key: statistics.median(values) for key, values in by_environment.items()}
    factors = [statistics.median(math.log(run[c]) - medians[c][environment[r]] for c in medians)
               if len(medians) >= 2 else 0.0 for r, run in enumerate(runs)]
    return {case: [math.exp(math.log(run[case]) - factors[r]) for r, run in enumerate(runs)] for case in runs[0]}


def compare_with_otava(runs, environments, found, tally, number, verbose):
    """Tallies, per series, whether this analysis and Otava place their change points within 2 runs of
    each other, environment steps left out."""
    from otava.analysis import compute_change_points

    boundaries = [r for r in range(1, len(runs)) if environments.get(r, {}) != environments.get(r - 1, {})]
    for case, values in levels(runs, environments).items():
        ours = [index for index, _, _, environment in found.get(case, []) if not environment]
        points, _ = compute_change_points(values, window_len=50, max_pvalue=0.05, min_magnitude=0.02)
        theirs = [int(p.index) for p in points if all(abs(int(p.index) - b) > 2 for b in boundaries)]
        if not ours and not theirs:
            continue
        ours_only = [i for i in ours if all(abs(i - j) > 2 for j in theirs)]
        theirs_only = [j for j in theirs if all(abs(i - j) > 2 for i in ours)]
        kind = ("otava both" if ours and theirs else "otava ours" if ours else "otava theirs")
        tally[kind] += 1
        if ours and theirs:
            tally["otava agree" if not ours_only and not theirs_only else "otava differ"] += 1
        tally["otava points ours only"] += len(ours_only)
        tally["otava points theirs only"] += len(theirs_only)
        tally["otava points matched"] += len(ours) - len(ours_only)
        if verbose and (ours_only or theirs_only):
            print(f"history {number}: {case}: ours {ours}, Otava's {theirs}", file=sys.stderr)


def one_history(task):
    """One simulated history of `--months`: its tallies."""
    arguments, number = task
    rng = random.Random(arguments.seed * 1_000_003 + number)
    pool = read_histories(arguments.runs)[arguments.months]
    cases = sorted(set.intersection(*(set(run) for run in pool)))
    length = arguments.length
    signal = {}
    for case in cases:
        level, walk = 0.0, []
        for _ in range(length):
            walk.append(level)
            level += rng.gauss(0, arguments.drift / 100)
        for percent, pattern, start in arguments.shift:
            if re.search(pattern, case):
                walk = [w + (math.log1p(float(percent) / 100) if r >= int(start) else 0) for r, w in enumerate(walk)]
        signal[case] = walk
    drawn = [rng.choice(pool) for _ in range(length)]
    runs = [{c: drawn[r][c] * math.exp(signal[c][r]) for c in cases} for r in range(length)]
    environments = collections.defaultdict(dict)
    for column, value, start in arguments.environment:
        for r in range(int(start), length):
            environments[r][column] = value
    scratch = tempfile.mkdtemp(prefix="simulate-history-")
    tally = collections.Counter()
    try:
        # A history of fewer than 6 runs is too short for any step.
        nights = range(6, length + 1) if arguments.nightly else [length]
        since = None
        for night in nights:
            found = changes(arguments.bench, runs[:night], scratch, arguments.threshold, environments,
                            since if arguments.nightly else None)
            alerts = [(case, index) for case, points in found.items() for index, _, alert, _ in points if alert]
            tally["alerts"] += len(alerts)
            for case, index in alerts:
                if true_step(signal[case], index) < 0.01:
                    tally["false alerts"] += 1
                    tally[("false", case)] = 1
                    if arguments.verbose:
                        change = next(c for i, c, *_ in found[case] if i == index)
                        print(f"history {number} night {night}: {case} at {index} {change:+.2f}%, noiseless "
                              f"{100 * true_step(signal[case], index):+.2f}%", file=sys.stderr)
            if alerts and arguments.nightly:
                since = max(index for _, index in alerts)
        tally["nights"] = len(nights)
        # The last night's analysis: steps found, environment steps, change points elsewhere.
        for case, points in found.items():
            tally[("any", case)] = 1
            for index, change, alert, environment in points:
                for percent, pattern, start in arguments.shift:
                    if re.search(pattern, case) and abs(index - int(start)) <= 2 and change > 0:
                        tally[("found", case)] = 1
                if environment:
                    tally[("environment", case, index, environment)] = 1
        if arguments.otava:
            compare_with_otava(runs, environments, found, tally, number, arguments.verbose)
        if arguments.verbose:
            for case in cases:
                shifted = any(re.search(pattern, case) for _, pattern, _ in arguments.shift)
                if shifted and not tally[("found", case)]:
                    print(f"history {number}: {case} not found: {[(i, round(c, 2)) for i, c, *_ in found.get(case, [])]}",
                          file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return cases, tally


def months(arguments):
    tasks = [(arguments, number) for number in range(arguments.histories)]
    with multiprocessing.Pool(arguments.jobs) as workers:
        results = workers.map(one_history, tasks, chunksize=1)
    cases = results[0][0]
    histories = len(results)
    failures = []
    shifted = [c for c in cases if any(re.search(p, c) for _, p, _ in arguments.shift)]
    others = [c for c in cases if c not in shifted]
    print(f"\n## {histories} histories of {arguments.length} runs from {arguments.months}, drift "
          f"{arguments.drift:g}% a run" + (", night by night" if arguments.nightly else "") + "\n")
    for percent, pattern, start in arguments.shift:
        print(f"- shift: {percent}% from run {start} in /{pattern}/")
    for column, value, start in arguments.environment:
        print(f"- environment: {column} = {value} from run {start}")
    false_by_case = collections.Counter()
    for _, tally in results:
        for case in cases:
            false_by_case[case] += tally[("false", case)]
    with_false = sum(1 for _, tally in results if tally["false alerts"])
    if with_false:
        failures.append(f"{with_false} of {histories} histories with a false alert")
    worst = false_by_case.most_common(3)
    print(f"- histories with a false alert: {with_false} of {histories} ({100 * with_false / histories:.1f}%)")
    print(f"- series with a false alert, worst cases: "
          + ", ".join(f"{c} {n} of {histories}" for c, n in worst if n) if worst and worst[0][1] else
          "- series with a false alert: none in any case")
    if arguments.nightly:
        from scipy.stats import chi2

        per_history = [tally["false alerts"] * 100 / tally["nights"] for _, tally in results]
        nights = sum(tally["nights"] for _, tally in results)
        false = sum(tally["false alerts"] for _, tally in results)
        # The exact one-sided 95% bound on a Poisson count (Garwood 1936): false alerts are rare and
        # far apart, so each history's count is taken as Poisson, and the histories are independent.
        bound = chi2.ppf(0.95, 2 * (false + 1)) / 2 / nights
        print(f"- false alerts per 100 nights: mean {statistics.mean(per_history):.2f}, worst history "
              f"{max(per_history):.0f} ({false} in {nights} nights); at most {100 * bound:.3f} per 100 nights "
              f"(one-sided 95%), one in at least {1 / bound:,.0f} nights")
    if shifted and not arguments.environment:
        rates = sorted((sum(t[("found", c)] for _, t in results) / histories, c) for c in shifted)
        print(f"- shifted cases ({len(shifted)}) found within 2 runs: worst {rates[0][1]} "
              f"{100 * rates[0][0]:.1f}%, mean {100 * statistics.mean(r for r, _ in rates):.1f}%; "
              f"{sum(r >= 0.99 for r, _ in rates)} cases in at least 99%, {sum(r >= 0.95 for r, _ in rates)} in at "
              f"least 95%; below 95%: " + (", ".join(f"{c} {100 * r:.1f}%" for r, c in rates if r < 0.95) or "none"))
        other = sorted(((sum(t[("any", c)] for _, t in results) / histories, c) for c in others), reverse=True)
        if statistics.mean(r for r, _ in rates) < 0.95:
            failures.append("the shifted cases found within 2 runs in under 95% of histories on average")
        if others and statistics.mean(r for r, _ in other) > 0.01:
            failures.append("the other series with a change point in over 1% of histories on average")
        print(f"- other series ({len(others)}) with a change point: mean "
              f"{100 * statistics.mean(r for r, _ in other):.2f}%, worst {other[0][1]} {100 * other[0][0]:.1f}%")
    if arguments.otava:
        total = collections.Counter()
        for _, tally in results:
            total.update({k: v for k, v in tally.items() if isinstance(k, str) and k.startswith("otava")})
        print(f"- Apache Otava on the same series: both report a step in {total['otava both']} series, placed within 2 "
              f"runs of each other in {total['otava agree']} ({total['otava differ']} differ); this analysis only in "
              f"{total['otava ours']} series, Otava only in {total['otava theirs']}; change points matched "
              f"{total['otava points matched']}, this analysis's alone {total['otava points ours only']}, Otava's "
              f"alone {total['otava points theirs only']}")
    if arguments.environment:
        starts = {int(start) for _, _, start in arguments.environment}
        named = collections.Counter()
        for _, tally in results:
            for key in tally:
                if isinstance(key, tuple) and key[0] == "environment" and key[2] in starts:
                    named[key[1]] += 1
        # The cases moved by at least the threshold (2% unless --threshold says otherwise).
        least = (arguments.threshold or 2) / 100
        moved = [c for c in cases if abs(sum(math.log1p(float(p) / 100) for p, pattern, _ in arguments.shift
                                             if re.search(pattern, c))) >= math.log1p(least)] or cases
        rates = sorted((named[c] / histories, c) for c in moved)
        causes = {key[3] for _, tally in results for key in tally if isinstance(key, tuple) and key[0] == "environment"}
        print(f"- moved series ({len(moved)}) with an environment step at the change: worst {rates[0][1]} "
              f"{100 * rates[0][0]:.1f}%, mean {100 * statistics.mean(r for r, _ in rates):.1f}%; causes named: "
              + "; ".join(sorted(causes)))
        # A step named where the environment moved the series by less than the threshold: a wrong cause.
        unmoved = sorted(((named[c] / histories, c) for c in cases if c not in moved), reverse=True)
        if unmoved:
            print(f"- other series ({len(unmoved)}) with an environment step: mean "
                  f"{100 * statistics.mean(r for r, _ in unmoved):.2f}%, worst {unmoved[0][1]} {100 * unmoved[0][0]:.1f}%")
            if statistics.mean(r for r, _ in unmoved) > 0.01:
                failures.append("an environment step named in over 1% of the series it did not move on average")
        all_alerts = sum(1 for _, tally in results if tally["alerts"])
        print(f"- histories with any alert: {all_alerts} of {histories}")
        if all_alerts:
            failures.append(f"{all_alerts} of {histories} histories alerting at an environment change")
        if statistics.mean(r for r, _ in rates) < 0.95:
            failures.append("the environment step named in under 95% of the moved series on average")
    return failures


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
    parser.add_argument("--months")
    parser.add_argument("--histories", type=int, default=1000)
    parser.add_argument("--drift", type=float, default=0)
    parser.add_argument("--shift", nargs=3, action="append", default=[], metavar=("PERCENT", "REGEX", "RUN"))
    parser.add_argument("--environment", nargs=3, action="append", default=[], metavar=("COLUMN", "VALUE", "RUN"))
    parser.add_argument("--nightly", action="store_true")
    parser.add_argument("--otava", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--verbose", action="store_true")
    arguments = parser.parse_args()
    if arguments.months:
        if arguments.length == 30:
            arguments.length = 100
        arguments.bench = os.path.abspath(arguments.bench)
        failures = months(arguments)
        if arguments.check and failures:
            for failure in failures:
                print(f"simulate_history.py --check: {failure}", file=sys.stderr)
            sys.exit(1)
        return
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
            if any(abs(index - place) <= 2 and (change > 0) == (step[case] > 0)
                   for index, change, *_ in points.get(case, [])):
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
