import Foundation
import PKCEBenchCore

package enum ComparisonFormatter {
    static let columnNames = [
        "backend", "operation", "size", "threads", "baseline_ns_median", "current_ns_median", "change_pct",
        "ci_low_pct", "ci_high_pct", "detectable_pct", "p_value", "method", "verdict", "metric",
        "baseline_instructions", "current_instructions",
    ]

    /// The table ends with a line that counts the verdicts and says how they were reached; the
    /// Markdown is a pull-request comment (`markdown(_:)`).
    package static func render(_ comparison: Comparison, as format: OutputFormat) -> String {
        switch format {
        case .csv:
            return csv(comparison, lineEnding: .lf)
        case .json:
            return JSONReport.comparison(comparison)
        case .table:
            let lines = [summary(comparison)] + notes(comparison)
            return table(comparison.cases, metric: comparison.metric).plain() + "\n" + lines.joined(separator: "\n")
                + "\n"
        case .markdown:
            return markdown(comparison)
        }
    }

    /// The order in which a pull-request comment and the HTML report list verdicts: what needs
    /// a reader first.
    static let attentionOrder: [Verdict] = [
        .regressed, .failedInCurrent, .improved, .inconclusive, .failedInBaseline, .onlyInCurrent, .onlyInBaseline,
    ]

    /// The comparison as a pull-request comment, laid out as the article "Comparing runs" shows.
    static func markdown(_ comparison: Comparison) -> String {
        func run(_ identity: RunIdentity) -> String {
            let id = identity.runID.isEmpty ? "no rows" : Markdown.code(identity.runID)
            let commit = identity.commit.isEmpty ? "" : " at commit \(Markdown.code(identity.commit))"
            return "\(id)\(commit) (\(Markdown.text(identity.name)))"
        }
        var lines = [
            "### PKCEBench: \(summary(comparison))", "",
            "Baseline \(run(comparison.runs.baseline)); current \(run(comparison.runs.current)).", "",
        ]
        for warning in comparison.warnings {
            lines += ["> [!WARNING]", "> \(Markdown.text(warning, startsLine: true))", ""]
        }
        let notable = comparison.cases(in: attentionOrder)
        if notable.isEmpty {
            lines += ["Every case is unchanged within the threshold.", ""]
        } else {
            lines += [String(table(notable, metric: comparison.metric).markdown().dropLast()), ""]
        }
        let unchanged = comparison.cases.filter { $0.verdict == .unchanged }
        if !unchanged.isEmpty {
            lines += [
                "<details><summary>\(unchanged.count) unchanged</summary>", "",
                String(table(unchanged, metric: comparison.metric).markdown().dropLast()), "", "</details>", "",
            ]
        }
        lines += notes(comparison).map { "<sub>\(Markdown.text($0))</sub>\n" }
        return lines.joined(separator: "\n").trimmingCharacters(in: .newlines) + "\n"
    }

    private static func table(_ cases: [CaseComparison], metric: Metric) -> TextTable {
        let counted = metric == .instructions
        let unit = counted ? "instr/op" : "ns/op"
        var table = TextTable([
            ("operation", .left), ("size", .right), ("threads", .right), ("backend", .left),
            ("baseline \(unit)", .right), ("current \(unit)", .right), ("change", .right), ("95% bounds", .right),
            ("detectable", .right), ("p (Holm)", .right), ("verdict", .left),
        ])
        for item in cases {
            table.append(
                [item.key.operation.rawValue, String(item.key.size), String(item.key.threads), item.key.backend]
                    + figureCells(item, counted: counted)
                    + [item.detectable.map(percent) ?? "", item.pValue.map(pValue) ?? "", item.verdict.rawValue])
        }
        return table
    }

    /// `1 regressed, 0 improved, 40 unchanged, 3 inconclusive (threshold 5%, alpha 0.01)`.
    static func summary(_ comparison: Comparison) -> String {
        let counts = Dictionary(grouping: comparison.cases, by: \.verdict).mapValues(\.count)
        var parts = [Verdict.regressed, .improved, .unchanged].map { "\(counts[$0, default: 0]) \($0.rawValue)" }
        parts += [Verdict.inconclusive, .failedInCurrent, .failedInBaseline, .onlyInBaseline, .onlyInCurrent]
            .compactMap { verdict in counts[verdict].map { "\($0) \(verdict.rawValue)" } }
        let threshold = String(format: "%g%%", comparison.criteria.threshold * 100)
        let basis =
            comparison.metric == .instructions ? "instruction counts" : "alpha \(comparison.criteria.alpha)"
        return parts.joined(separator: ", ") + " (threshold \(threshold), \(basis))"
    }

    /// What the reader must know to trust the verdicts.
    static func notes(_ comparison: Comparison) -> [String] {
        let threshold = String(format: "%g%%", comparison.criteria.threshold * 100)
        var lines: [String] = []
        if comparison.cases.contains(where: { $0.method == .pairs || $0.method == .processes }) {
            lines.append(verdictRule(comparison, threshold: threshold))
        }
        if comparison.pairing == .byProcess {
            let looks = Dictionary(grouping: comparison.cases.compactMap(\.look)) { $0 }
            if !looks.isEmpty {
                lines.append(
                    "pairs per case: "
                        + looks.keys.sorted().map { look in
                            "\(comparison.looks.pairs(atLook: look)) for \(looks[look]!.count) case(s)"
                        }.joined(separator: ", "))
            }
        }
        switch comparison.layout {
        case .relinked:
            lines.append(
                "code layout: both builds linked again for every pair, their shared functions in one random order "
                    + "on both sides, a new one each pair: the verdicts hold over those orders")
        case .asLinked:
            lines.append(
                "code layout: each executable as it was linked, one layout a side: a change that only moves code "
                    + "can show as a change here; bench ab --against REF links both builds again for every pair")
        case .oneBuild, nil:
            break
        }
        if comparison.pairing == .independent && comparison.cases.contains(where: { $0.method == .processes }) {
            lines += runsMadeApart(comparison)
        }
        if comparison.cases.contains(where: { $0.method == .instructions }) {
            lines.append(
                "verdicts: instructions per operation under Callgrind, which repeat exactly: a change of at least "
                    + "\(threshold) either way is a regression or an improvement, anything less is unchanged")
        }
        let thresholdOnly = comparison.cases.filter { $0.method == .threshold }.count
        if thresholdOnly > 0 {
            lines.append(
                "no samples for \(thresholdOnly) case(s): their verdicts use the \(threshold) threshold alone, "
                    + "without a significance test")
        }
        if comparison.isInconclusive {
            let count = comparison.cases.filter { $0.verdict == .inconclusive }.count
            lines.append(
                (count > 0
                    ? "inconclusive: the data could not decide \(count) case(s) at the threshold; measure them again"
                    : "inconclusive: the whole run moved by the threshold; measure again")
                    + (comparison.hasRegression ? "" : " (exit 2)"))
        }
        return lines
    }

    /// What the bounds of runs made apart hold: the run-wide shift taken out, and the spread
    /// between runs, measured or held to the floor.
    private static func runsMadeApart(_ comparison: Comparison) -> [String] {
        guard let spread = comparison.runToRun else { return [] }
        let floor = String(format: "%g%%", spread.driftFloor * 100)
        let timed = comparison.cases.filter { $0.method == .processes }
        guard let shift = comparison.runShift else {
            return [
                "runs made apart: fewer than \(Comparison.minimumCasesForShift) cases to measure the host's drift "
                    + "by; each case's bounds are widened by the \(floor) drift floor, so only a change beyond it "
                    + "can be called"
            ]
        }
        let unmeasured = timed.filter { comparison.unmeasuredSpread.contains($0.key) }.count
        let between =
            unmeasured == 0
            ? "each case's spread between runs, measured from \(spread.runs) runs of \(spread.commits) "
                + "commit(s) of this host in the history, is in its bounds"
            : unmeasured == timed.count
                ? "the spread between runs is unmeasured (the history has no \(RunToRunSpread.minimumRuns) runs of "
                    + "this host and build in a row without a step or a change of kernel, Swift or library, besides "
                    + "the two compared, or none of runs that took as many samples as these two), so each case's "
                    + "bounds are widened by the \(floor) drift floor and only a change beyond it can be called"
                : "\(timed.count - unmeasured) cases' spread between runs, measured from \(spread.runs) runs of "
                    + "\(spread.commits) commit(s) of this host in the history, is in their bounds; \(unmeasured) "
                    + "without one have theirs widened by the \(floor) drift floor"
        let alarm = String(format: "%g%%", Comparison.shiftAlarm * 100)
        let doubt =
            comparison.shiftBeyondAlarm
            ? ", and as it is beyond \(alarm) (the host, or a change of many cases) a verdict stands only where it "
                + "holds both net of it and as measured"
            : ""
        return [
            "runs made apart: the whole current run moved \(percent(shift)), the median change of its cases; "
                + "each case's change and bounds are net of it, so a change that moves every case alike shows "
                + "here, not in the verdicts\(doubt); \(between)"
        ] + leftOut(spread.leftOut)
    }

    /// The runs of the history that the spread could not use, and why.
    private static func leftOut(_ leftOut: RunToRunSpread.LeftOut) -> [String] {
        guard leftOut.total > 0 else { return [] }
        let reasons = [
            (leftOut.otherHost, "of another host or build"),
            (leftOut.unknownCode, "of a build with uncommitted changes or no known commit"),
            (leftOut.fewCases, "of fewer than \(Comparison.minimumCasesForShift) cases"),
            (leftOut.older, "older than the newest \(RunToRunSpread.lastRuns) of this host"),
        ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return [
            "history: \(leftOut.total) run(s) not used for the spread between runs: " + reasons.joined(separator: ", ")
        ]
    }

    private static func verdictRule(_ comparison: Comparison, threshold: String) -> String {
        let looks = comparison.looks.looks
        let (unit, spent, open) =
            comparison.pairing == .byProcess
            ? (
                "each pair of processes counts once, by the median ratio of its back-to-back samples, and a case "
                    + "by the 20% trimmed mean of its pairs",
                looks > 1 ? ", alpha and the bound split over \(looks) looks" : "",
                "still open after \(comparison.looks.pairs(atLook: looks)) pairs"
            )
            : (
                "each run counts once, by its fastest sample, against the spread between runs (where that is "
                    + "unmeasured, each measuring process, by its own)", "", "neither"
            )
        return "verdicts: \(unit); regressed: at least \(threshold) slower and significantly slower at alpha over "
            + "all cases together (Holm\(spent)); unchanged: the upper 95% bound lies below +\(threshold); "
            + "improved: below it, and at least \(threshold) faster, significantly; inconclusive: \(open); "
            + "detectable: the slowdown flagged with 80% probability"
    }

    /// A figure as the tables show it: an instruction count, or a median time in nanoseconds.
    static func figure(_ nanoseconds: Double?, _ instructions: Double?, counted: Bool) -> String {
        counted
            ? instructions.map { String(format: "%.1f", $0) } ?? ""
            : nanoseconds.map(NumberFormat.nanoseconds) ?? ""
    }

    /// A case's baseline and current figures, its change and its 95% bounds, as the tables show them.
    static func figureCells(_ item: CaseComparison, counted: Bool) -> [String] {
        [
            figure(item.baselineMedian, item.baselineInstructions, counted: counted),
            figure(item.currentMedian, item.currentInstructions, counted: counted),
            item.change.map(percent) ?? "",
            item.interval.map { "\(percent($0.lowerBound)) … \(percent($0.upperBound))" } ?? "",
        ]
    }

    /// `+4.2%`, from a fraction.
    static func percent(_ value: Double) -> String {
        String(format: "%+.1f%%", value * 100)
    }

    private static func pValue(_ value: Double) -> String {
        value < 0.001 ? "<0.001" : String(format: "%.3f", value)
    }

    private static func fields(_ item: CaseComparison, metric: Metric) -> [String] {
        func percent(_ value: Double?) -> String { ReportSchema.format(value.map { $0 * 100 }, decimals: 2) }
        return [
            item.key.backend, item.key.operation.rawValue, String(item.key.size), String(item.key.threads),
            ReportSchema.format(item.baselineMedian, decimals: 3),
            ReportSchema.format(item.currentMedian, decimals: 3),
            percent(item.change), percent(item.interval?.lowerBound), percent(item.interval?.upperBound),
            percent(item.detectable), item.pValue.map { String(format: "%.6g", $0) } ?? "", item.method.rawValue,
            item.verdict.rawValue, metric.rawValue,
            ReportSchema.format(item.baselineInstructions, decimals: 3),
            ReportSchema.format(item.currentInstructions, decimals: 3),
        ]
    }

    /// The comparison as CSV, one row per case under `columnNames`: LF for standard output,
    /// CRLF for a file (`ab-comparison.csv`).
    package static func csv(_ comparison: Comparison, lineEnding: CSV.LineEnding) -> String {
        CSV.encode(
            header: columnNames, records: comparison.cases.map { fields($0, metric: comparison.metric) },
            lineEnding: lineEnding)
    }
}

func encodeJSON(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    // Plain structs of strings and finite numbers always encode.
    guard let data = try? encoder.encode(value) else { preconditionFailure("a report must encode as JSON") }
    return String(decoding: data, as: UTF8.self) + "\n"
}
