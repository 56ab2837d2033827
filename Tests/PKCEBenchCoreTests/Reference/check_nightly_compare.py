#!/usr/bin/env python3
"""bench compare from a nightly history, leave-one-out, as ComparingRuns.md quotes it.

usage: check_nightly_compare.py BENCH SOURCE OUT_DIR [--no-history]

SOURCE is a directory of runs of one build (<id>.csv and <id>.samples.csv, from `bench run
--output DIR`), or runs-apart.csv:STRETCH[+STRETCH] or runs-apart-zen4.csv:nights (each measuring
process's fastest sample and each run's median, as extract_runs.py wrote them), whose runs are
written out as run files with one sample per process, with the facts of the file's host: all that
`bench compare` reads of a run made apart.

Each run is given a commit of its own, in its files and in the history, as a nightly history of
commits that did not change the code holds them: one run a commit. The history is every run
(`bench compare` leaves the two compared out of it). Run i is compared with run i - 1, the night
before, as it is (a false call is any case regressed or improved) and with sha256/swift/1024 made
10% slower (found when that case, and no other, regressed); then every pair of runs. With
--no-history, the history is empty: every case's spread is unmeasured. Prints a Markdown table.
"""
import collections, csv, itertools, os, statistics, subprocess, sys

bench, source, out = sys.argv[1], sys.argv[2], sys.argv[3]
no_history = "--no-history" in sys.argv[4:]
TARGET = ("sha256", "swift", "1024")
HEADER = ("schema,run_id,timestamp,commit,build,backend,operation,size,threads,status,samples,iterations,"
          "ns_median,ns_p10,ns_p90,ns_min,ns_mean,ns_stddev,cv,ops_per_sec,mb_per_sec,cpu,cpu_flags,cores,kernel,"
          "swift,library,error,target_cpu,allocs_per_op,metric,instructions_per_op,commit_source").split(",")
SAMPLE_HEADER = "schema,run_id,backend,operation,size,threads,process,sample,iterations,ns_per_op,allocations".split(",")


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write(path, fields, rows):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\r\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def runs_from_directory(directory):
    """[(summary rows, sample rows)] in time order."""
    names = sorted(p[:-4] for p in os.listdir(directory) if p.startswith("2") and p.endswith(".csv")
                   and not p.endswith(".samples.csv"))
    return [(read(os.path.join(directory, n + ".csv")), read(os.path.join(directory, n + ".samples.csv")))
            for n in names]


# The host facts of each committed file's runs, which the files themselves do not keep.
HOSTS = {"runs-apart.csv": ("sha_ni avx2", "6.18.44-fc-v857", "2026-11-26"),
         "runs-apart-zen4.csv": ("sha_ni avx2 avx512f", "6.18.44-fc-v669", "2026-12-01")}


def runs_from_apart(path, stretches):
    """runs-apart.csv's runs as run files would hold them: one sample per process, its fastest."""
    grouped = collections.defaultdict(lambda: collections.defaultdict(dict))
    medians = {}
    for row in read(path):
        if row["stretch"] in stretches:
            run = (stretches.index(row["stretch"]), int(row["run"]))
            grouped[run][row["case"]][int(row["process"])] = float(row["fastest_ns"])
            medians[(run, row["case"])] = float(row["median_ns"])
    flags, kernel, day = HOSTS[os.path.basename(path)]
    runs = []
    for number, run in enumerate(sorted(grouped)):
        stamp = f"{day}T{number // 60:02d}:{number % 60:02d}:00.000Z"
        summaries, samples = [], []
        for case, processes in sorted(grouped[run].items()):
            operation, backend, size = case.split("/")
            median = medians[(run, case)]
            summaries.append(dict(
                schema="3", timestamp=stamp, build="release", backend=backend, operation=operation, size=size,
                threads="1", status="ok", samples=str(len(processes)), iterations="1000", ns_median=f"{median:.3f}",
                ns_p10=f"{median:.3f}", ns_p90=f"{median:.3f}", ns_min=f"{min(processes.values()):.3f}",
                ns_mean=f"{median:.3f}", ns_stddev="0.000", cv="0.00000", ops_per_sec=f"{1e9 / median:.1f}",
                mb_per_sec="", cpu="AMD EPYC", cpu_flags=flags, cores="2", kernel=kernel,
                swift="6.3.1", library="", error="", target_cpu="x86-64", allocs_per_op="", metric="time",
                instructions_per_op="", commit_source="build"))
            for process, fastest in sorted(processes.items()):
                samples.append(dict(schema="3", backend=backend, operation=operation, size=size, threads="1",
                                    process=str(process), sample=str(process), iterations="1000", ns_per_op=f"{fastest:.3f}",
                                    allocations=""))
        runs.append((summaries, samples))
    return runs


def nightly(runs):
    """Each run with a commit and a run id of its own; the history of them all. Returns the runs' paths."""
    directory = os.path.join(out, "runs")
    os.makedirs(directory, exist_ok=True)
    history, paths = [], []
    for number, (summaries, samples) in enumerate(runs):
        commit = f"a{number:06x}"
        stamp = summaries[0]["timestamp"]
        run_id = stamp.replace("-", "").replace(":", "")[:19] + "Z-" + commit + f"-{number:08x}"
        for row in summaries + samples:
            row.update(run_id=run_id)
        for row in summaries:
            row.update(commit=commit)
        path = os.path.join(directory, run_id + ".csv")
        write(path, HEADER, summaries)
        write(os.path.join(directory, run_id + ".samples.csv"), SAMPLE_HEADER, samples)
        history += summaries
        paths.append(path)
    write(os.path.join(directory, "history.csv"), HEADER, [] if no_history else history)
    return paths


def slower(path, factor):
    """A copy of the run at `path` with sha256/swift/1024 `factor` times slower, samples and figures."""
    def key(row):
        return (row["operation"], row["backend"], row["size"])
    summaries, samples = read(path), read(path[:-4] + ".samples.csv")
    for row in summaries:
        if key(row) == TARGET:
            for column in ("ns_median", "ns_p10", "ns_p90", "ns_min", "ns_mean", "ns_stddev"):
                row[column] = f"{float(row[column]) * factor:.3f}"
            row["ops_per_sec"] = f"{float(row['ops_per_sec']) / factor:.1f}"
            if row["mb_per_sec"]:
                row["mb_per_sec"] = f"{float(row['mb_per_sec']) / factor:.1f}"
    for row in samples:
        if key(row) == TARGET:
            row["ns_per_op"] = f"{float(row['ns_per_op']) * factor:.3f}"
    copy = os.path.join(out, "slower", os.path.basename(path))
    os.makedirs(os.path.dirname(copy), exist_ok=True)
    write(copy, HEADER, summaries)
    write(copy[:-4] + ".samples.csv", SAMPLE_HEADER, samples)
    return copy


def compare(baseline, current):
    history = os.path.join(out, "runs", "history.csv")
    result = subprocess.run([bench, "compare", baseline, current, "--format", "csv", "--history", history],
                            capture_output=True, text=True)
    if result.returncode not in (0, 1, 2):
        sys.exit(f"bench compare failed ({result.returncode}): {result.stderr}")
    verdicts = {f"{r['operation']}/{r['backend']}/{r['size']}": r["verdict"] for r in csv.DictReader(result.stdout.splitlines())}
    return result.returncode, verdicts


def tally(pairs, factor=None):
    exits, calls, inconclusive, found, cases = collections.Counter(), collections.Counter(), 0, 0, 0
    target = "/".join(TARGET)
    for baseline, current in pairs:
        code, verdicts = compare(baseline, slower(current, factor) if factor else current)
        exits[code] += 1
        cases += len(verdicts)
        inconclusive += sum(v == "inconclusive" for v in verdicts.values())
        wrong = [c for c, v in verdicts.items() if v in ("regressed", "improved") and not (factor and c == target)]
        calls.update(wrong)
        if factor and verdicts.get(target) == "regressed" and not wrong:
            found += 1
    return exits, calls, inconclusive / cases, found


if os.path.isdir(source):
    runs = runs_from_directory(source)
else:
    path, stretches = source.split(":", 1)
    runs = runs_from_apart(path, stretches.split("+"))
paths = nightly(runs)
neighbours = list(zip(paths, paths[1:]))
every = list(itertools.combinations(paths, 2))
print(f"{len(paths)} runs, one commit each; bench compare with " + ("no history" if no_history else "the history of them all") + "\n")
print("| comparisons | false regressions (exit 1) | cases regressed or improved | inconclusive cases | sha256/swift/1024 +10% found alone |")
print("|---|---:|---|---:|---:|")
for name, pairs in (("each run against the night before", neighbours), ("every pair of runs", every)):
    exits, calls, share, _ = tally(pairs)
    row = f"| {name}: {len(pairs)} | {exits[1]} ({100 * exits[1] / len(pairs):.1f}%) | "
    row += (", ".join(f"`{c}` {n}" for c, n in calls.most_common(4)) or "none") + f" | {100 * share:.1f}% | "
    if pairs is neighbours:
        _, _, _, found = tally(pairs, 1.10)
        row += f"{found} of {len(pairs)} ({100 * found / len(pairs):.0f}%) |"
    else:
        row += "— |"
    print(row)
