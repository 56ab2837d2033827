import Foundation
import PKCEBenchCore

/// `latest.html`: a run's results as one self-contained page with no script, laid out as the
/// article "Reports" describes. Its markup is also well-formed XML, so that tests (and scripts) can
/// read it with an XML parser.
package enum HTMLReport {
    /// With `changes`, the page also shows the steps in each case's series of runs up to this one.
    package static func page(_ run: RunResult, comparison: Comparison? = nil, changes: HistoryChanges? = nil) -> String
    {
        let rows = run.summaries
        let environment = run.environment
        var body = [
            "<header>",
            "<h1>PKCEBench: \(SVG.escape(environment.runID))</h1>",
            "<p>Commit <code>\(SVG.escape(environment.commit))</code>\(commitSource(environment)), "
                + "\(SVG.escape(environment.build.rawValue)) build, "
                + "started \(SVG.escape(environment.timestamp)).</p>",
            environmentList(environment),
            "</header>",
        ]
        if let comparison {
            body += comparisonSection(comparison)
        }
        body += resultsSection(rows, samples: run.samples.mapValues { $0.map(\.nanosecondsPerOperation) })
        body += chartsSection(rows)
        if let changes {
            body += changesSection(changes)
        }
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <title>PKCEBench \(SVG.escape(environment.runID))</title>
            <style>\(style)</style>
            </head>
            <body>
            \(body.joined(separator: "\n"))
            </body>
            </html>

            """
    }

    private static let style = """

        body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328;
          background: #ffffff; margin: 2rem auto; max-width: 1200px; padding: 0 1rem; }
        h1 { font-size: 1.5rem; margin-bottom: .25rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
        code { font-family: ui-monospace, Menlo, Consolas, monospace; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; margin: .5rem 0; }
        dt { color: #59636e; } dd { margin: 0; }
        table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
        th, td { padding: .25rem .5rem; border-bottom: 1px solid #d1d9e0; text-align: right; white-space: nowrap; }
        th { background: #f6f8fa; } th:first-child, td:first-child { text-align: left; }
        td.text { text-align: left; white-space: normal; }
        tr.group-start td { border-top: 2px solid #818b98; }
        tr.fastest td:first-child::after { content: " ★"; color: #9a6700; }
        tr.regressed, tr.failed-in-current { background: #ffebe9; }
        tr.improved { background: #dafbe1; } tr.inconclusive { background: #fff8c5; }
        p.warning { background: #fff8c5; border-left: 4px solid #9a6700; padding: .5rem .75rem; }
        .charts { display: flex; flex-wrap: wrap; gap: 1rem; }
        .charts svg, td svg { display: block; }

        """

    // MARK: - Sections

    private static func commitSource(_ environment: RunEnvironment) -> String {
        switch environment.commitSource {
        case .build: " (the build's)"
        case .workingTree: " (the working tree's; the executable recorded none)"
        case nil: ""
        }
    }

    private static func environmentList(_ environment: RunEnvironment) -> String {
        let facts: [(String, String)] =
            [
                ("CPU", environment.cpu), ("CPU features", environment.cpuFlags),
                ("cores", environment.cores > 0 ? String(environment.cores) : ""),
                ("compiled for", environment.targetCPU), ("kernel", environment.kernel), ("Swift", environment.swift),
            ] + environment.libraries.sorted { $0.key < $1.key }.map { ("library of \($0.key)", $0.value) }
        return "<dl>" + facts.map { "<dt>\($0.0)</dt><dd>\(SVG.escape($0.1.isEmpty ? "unknown" : $0.1))</dd>" }.joined()
            + "</dl>"
    }

    private static func comparisonSection(_ comparison: Comparison) -> [String] {
        let counted = comparison.metric == .instructions
        let unit = counted ? "instr/op" : "ns/op"
        var lines = [
            "<section id=\"comparison\">",
            "<h2>Against \(SVG.escape(comparison.runs.baseline.name))"
                + (comparison.runs.baseline.runID.isEmpty ? "" : " (\(SVG.escape(comparison.runs.baseline.runID)))")
                + "</h2>",
            "<p class=\"summary\">\(SVG.escape(ComparisonFormatter.summary(comparison)))</p>",
        ]
        lines += comparison.warnings.map { "<p class=\"warning\">\(SVG.escape($0))</p>" }
        lines.append(
            "<table><thead><tr><th>case</th><th>baseline \(unit)</th><th>current \(unit)</th><th>change</th>"
                + "<th>95% bounds</th><th>verdict</th></tr></thead><tbody>")
        for item in comparison.cases(in: ComparisonFormatter.attentionOrder + [.unchanged]) {
            lines.append(
                "<tr class=\"\(item.verdict.rawValue)\" data-case=\"\(SVG.escape(item.key.description))\">"
                    + "<td>\(SVG.escape(item.key.description))</td>"
                    + ComparisonFormatter.figureCells(item, counted: counted).map { "<td>\(SVG.escape($0))</td>" }
                    .joined()
                    + "<td class=\"text\">\(item.verdict.rawValue)</td></tr>")
        }
        lines += ["</tbody></table>"]
        lines += ComparisonFormatter.notes(comparison).map { "<p class=\"note\">\(SVG.escape($0))</p>" }
        return lines + ["</section>"]
    }

    /// One table per metric: a case both timed and counted is a row of each.
    private static func resultsSection(_ rows: [CaseSummary], samples: [CaseKey: [Double]]) -> [String] {
        let tables = Metric.allCases.flatMap { metric in
            let rows = rows.filter { $0.metric == metric }
            return rows.isEmpty ? [] : resultsTable(rows, counted: metric == .instructions, samples: samples)
        }
        return ["<section id=\"results\">", "<h2>Results</h2>"]
            + (tables.isEmpty ? resultsTable([], counted: false, samples: [:]) : tables) + ["</section>"]
    }

    /// The rows of one metric.
    private static func resultsTable(_ rows: [CaseSummary], counted: Bool, samples: [CaseKey: [Double]]) -> [String] {
        let headings =
            counted
            ? ["case", "instructions/op"]
            : ["case", "median ns/op", "p10", "p90", "ops/s", "MB/s", "±cv", "allocs/op", "samples", "distribution"]
        var lines = [
            "<p>"
                + (counted
                    ? "Instructions per operation under Callgrind."
                    : "Nanoseconds per operation over each case's samples; ★ marks the fastest backend of each "
                        + "operation and size; the distribution spans the case's fastest to slowest sample, "
                        + "its median marked.") + "</p>",
            "<table data-metric=\"\((counted ? Metric.instructions : .time).rawValue)\"><thead><tr>"
                + headings.map { "<th>\($0)</th>" }.joined() + "</tr></thead><tbody>",
        ]
        let best = SummaryFormatter.bestInGroups(rows)
        var previous: CaseGroup?
        for row in rows {
            var classes = row.key.group == previous ? [] : ["group-start"]
            if best.contains(row.key) { classes.append("fastest") }
            previous = row.key.group
            let head =
                "<tr class=\"\(classes.joined(separator: " "))\" data-case=\"\(SVG.escape(row.key.description))\">"
                + "<td>\(SVG.escape(row.key.description))</td>"
            let cells: [String]
            var distribution = ""
            switch row.outcome {
            case .failed(let reason):
                lines.append(
                    head
                        + "<td class=\"text\" colspan=\"\(headings.count - 1)\">failed: \(SVG.escape(reason))</td></tr>"
                )
                continue
            case .counted(let instructions):
                cells = [String(format: "%.1f", instructions)]
            case .timed(let times):
                cells =
                    [times.median, times.p10, times.p90].map(NumberFormat.nanoseconds)
                    + SummaryFormatter.rateCells(row, times) + [String(row.samples)]
                distribution = "<td>\(histogram(samples[row.key] ?? [], median: times.median))</td>"
            }
            lines.append(head + cells.map { "<td>\(SVG.escape($0))</td>" }.joined() + distribution + "</tr>")
        }
        return lines + ["</tbody></table>"]
    }

    /// The steps in each case's series, as `bench history --changes` finds them, and the chart.
    private static func changesSection(_ changes: HistoryChanges) -> [String] {
        var lines = [
            "<section id=\"changes\">",
            "<h2>Steps in each case's series of runs, up to this one</h2>",
            "<p class=\"summary\">\(SVG.escape(ChangePointFormatter.summary(changes)))</p>",
        ]
        let rows = ChangePointFormatter.rows(changes).filter { $0.changePoint != nil }
        if !rows.isEmpty {
            lines.append(
                "<table><thead><tr><th>case</th><th>last run before</th><th>first run after</th><th>change</th>"
                    + "<th>95% interval</th><th>p</th></tr></thead><tbody>")
            for row in rows {
                guard let changePoint = row.changePoint, let change = row.change else { continue }
                let cells = [
                    "\(changePoint.lastBefore.commit) \(changePoint.lastBefore.timestamp)",
                    "\(changePoint.firstAfter.commit) \(changePoint.firstAfter.timestamp)",
                    String(format: "%+.1f%%", change.estimate),
                    String(format: "%+.1f…%+.1f%%", change.low, change.high),
                    // A step of the environment is not tested: its cause stands in the p-value's place.
                    changePoint.pValue.map { String(format: "%.3f", $0) }
                        ?? "environment: " + ChangePointFormatter.environmentChange(changePoint),
                ]
                lines.append(
                    "<tr class=\"\(row.status)\" data-case=\"\(SVG.escape(row.series.key.description))\">"
                        + "<td>\(SVG.escape(row.series.key.description))</td>"
                        + cells.map { "<td>\(SVG.escape($0))</td>" }.joined() + "</tr>")
            }
            lines.append("</tbody></table>")
        }
        return lines + ["<div class=\"charts\">", ChangePointChart.element(changes), "</div>", "</section>"]
    }

    /// A set of charts per metric: a case both timed and counted is drawn in each.
    private static func chartsSection(_ rows: [CaseSummary]) -> [String] {
        let backends = ThroughputChart.orderedBackends(rows)
        let sets = Metric.allCases.flatMap { metric -> [String] in
            let rows = rows.filter { $0.metric == metric }
            guard !rows.isEmpty else { return [] }
            let counted = metric == .instructions
            let charts = rows.map(\.key.group).uniqued().map { group in
                chart(group, rows: rows.filter { $0.key.group == group }, backends: backends, counted: counted)
            }
            return [
                counted
                    ? "<h2>Instructions per operation</h2>"
                    : "<h2>Median nanoseconds per operation, with the p10–p90 range (shorter is faster)</h2>",
                "<div class=\"charts\" data-metric=\"\(metric.rawValue)\">",
            ] + charts + ["</div>"]
        }
        return ["<section id=\"charts\">"] + sets + ["</section>"]
    }

    // MARK: - Charts

    private static func chart(_ group: CaseGroup, rows: [CaseSummary], backends: [String], counted: Bool) -> String {
        let present = backends.filter { backend in rows.contains { $0.key.backend == backend } }
        let width = 370.0, left = 70.0, right = width - 80, top = 30.0, rowHeight = 24.0
        var svg = SVG(width: width, height: top + rowHeight * Double(present.count) + 26)
        let title =
            "\(group.operation.rawValue), \(group.size) \(group.operation.sizeUnit)"
            + (group.threads > 1 ? ", \(group.threads) threads" : "")
        svg.text(title, x: 10, y: 18, size: 13, weight: "bold")
        let upper =
            rows.compactMap { $0.instructionsPerOperation ?? $0.times?.p90 }.max() ?? 1
        let axis = Axis(largest: upper)
        let bottom = top + rowHeight * Double(present.count)
        for tick in axis.ticks {
            let x = left + axis.fraction(tick) * (right - left)
            svg.line(x1: x, y1: top - 4, x2: x, y2: bottom, stroke: tick == 0 ? "#333333" : "#e5e5e5")
            svg.text(NumberFormat.siPrefixed(tick), x: x, y: bottom + 14, anchor: .middle, size: 9)
        }
        for (index, backend) in present.enumerated() {
            let y = top + rowHeight * Double(index)
            svg.text(backend, x: left - 6, y: y + 16, anchor: .end, size: 11)
            guard let row = rows.first(where: { $0.key.backend == backend }),
                let value = row.instructionsPerOperation ?? row.times?.median
            else {
                svg.text("failed", x: left + 4, y: y + 16, size: 11)
                continue
            }
            let x = { (value: Double) in left + axis.fraction(value) * (right - left) }
            let shown = ComparisonFormatter.figure(value, value, counted: counted)
            svg.rect(
                x: left, y: y + 5, width: x(value) - left, height: rowHeight - 10,
                fill: ThroughputChart.color(of: backend, in: backends),
                attributes: [("class", "median"), ("data-case", row.key.description)],
                title: "\(row.key): median \(shown)"
                    + (counted
                        ? " instructions/op"
                        : " ns/op, p10 \(row.times.map { NumberFormat.nanoseconds($0.p10) } ?? "") "
                            + "p90 \(row.times.map { NumberFormat.nanoseconds($0.p90) } ?? "")"))
            if !counted, let p10 = row.times?.p10, let p90 = row.times?.p90 {
                let middle = y + rowHeight / 2
                svg.line(x1: x(p10), y1: middle, x2: x(p90), y2: middle, stroke: "#1f2328", width: 1.5)
                for end in [p10, p90] {
                    svg.line(x1: x(end), y1: middle - 5, x2: x(end), y2: middle + 5, stroke: "#1f2328", width: 1.5)
                }
            }
            svg.text(
                shown, x: max(x(value), x(row.times?.p90 ?? value)) + 6, y: y + 16, size: 10)
        }
        return svg.element(title: title, attributes: [("class", "chart"), ("role", "img")])
    }

    private static func histogram(_ samples: [Double], median: Double?) -> String {
        // A hand-edited samples file could hold what no measurement gives.
        let samples = samples.filter(\.isFinite)
        let width = 160.0, height = 26.0, bins = 32
        var svg = SVG(width: width, height: height)
        guard let low = samples.min(), let high = samples.max() else {
            return svg.element(title: "no samples")
        }
        let span = high > low ? high - low : 1
        var counts = [Int](repeating: 0, count: bins)
        for sample in samples {
            counts[min(Int((sample - low) / span * Double(bins)), bins - 1)] += 1
        }
        let tallest = Double(counts.max() ?? 1)
        let binWidth = width / Double(bins)
        for (index, count) in counts.enumerated() where count > 0 {
            let barHeight = max(1, Double(count) / tallest * (height - 2))
            svg.rect(
                x: Double(index) * binWidth, y: height - barHeight, width: binWidth - 0.5, height: barHeight,
                fill: "#8c959f")
        }
        if let median, median.isFinite {
            let x = (median - low) / span * width
            svg.line(x1: x, y1: 0, x2: x, y2: height, stroke: "#cf222e", width: 1.5)
        }
        let title =
            "\(samples.count) samples from \(NumberFormat.nanoseconds(low)) to "
            + "\(NumberFormat.nanoseconds(high)) ns/op"
        return svg.element(title: title, attributes: [("class", "distribution")])
    }
}
