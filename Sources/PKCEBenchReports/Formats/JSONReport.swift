import PKCEBenchCore

/// The one JSON document that every `--format json` prints: its keys, their units, and when a
/// value is `null` are as `schema/report.schema.json` describes them.
package enum JSONReport {
    /// The value of the document's `schema` key; it changes when a key is removed or its meaning
    /// changes (a new key does not change it).
    package static let schema = "pkcebench-report/2"

    package static func run(_ run: RunResult) -> String {
        document(
            kind: "run", environment: run.summaries.isEmpty ? nil : run.environment,
            results: run.summaries.map(result))
    }

    /// A comparison, with the current run's environment and results beside it.
    package static func comparison(_ comparison: Comparison) -> String {
        document(
            kind: "run", environment: comparison.runs.current.environment,
            results: comparison.currentSummaries.map(result), comparison: part(comparison))
    }

    /// A history: no single environment, one result per case and run with its change against
    /// the case's previous run that has a figure.
    package static func history(_ trends: [HistoryTrend]) -> String {
        let results = trends.flatMap { trend in
            trend.points.map { point in
                JSONValue.object(
                    caseFields(trend.key).merging([
                        "run_id": .text(point.runID), "commit": .text(point.commit),
                        "ns_median": .number(point.median), "ns_min": .number(point.fastest),
                        "change_pct": .number(point.change.map { $0 * 100 }),
                    ]) { $1 })
            }
        }
        return document(kind: "history", environment: nil, results: results)
    }

    /// The steps of a history's series (`bench history --changes`): no single environment, one
    /// result per change point, or per series without one.
    static func changes(_ rows: [ChangePointFormatter.Row]) -> String {
        let results = rows.map { row in
            let changePoint = row.changePoint
            let change = row.change
            var fields: [String: JSONValue] = caseFields(row.series.key)
            fields["cpu"] = .text(row.series.host.cpu)
            fields["cpu_flags"] = .array(row.series.host.cpuFlags.split(separator: " ").map { .string(String($0)) })
            fields["build"] = .text(row.series.host.build.rawValue)
            fields["target_cpu"] = .text(row.series.host.targetCPU)
            fields["metric"] = .string(row.series.host.metric.rawValue)
            fields["runs"] = .integer(row.series.points.count)
            fields["status"] = .string(row.status)
            fields["last_run_before"] = .text(changePoint?.lastBefore.runID ?? "")
            fields["commit_before"] = .text(changePoint?.lastBefore.commit.description ?? "")
            fields["first_run_after"] = .text(changePoint?.firstAfter.runID ?? "")
            fields["commit_after"] = .text(changePoint?.firstAfter.commit.description ?? "")
            fields["change_pct"] = .number(change?.estimate)
            fields["change_low_pct"] = .number(change?.low)
            fields["change_high_pct"] = .number(change?.high)
            fields["p_value"] = .number(changePoint?.pValue)
            let library = changePoint?.libraryChange
            fields["library_before"] = library.map { .string($0.before) } ?? .null
            fields["library_after"] = library.map { .string($0.after) } ?? .null
            fields["environment_change"] =
                changePoint.flatMap { $0.isEnvironmental ? .string(ChangePointFormatter.environmentChange($0)) : nil }
                ?? .null
            fields["alert"] = changePoint == nil ? .null : .bool(row.isAlert)
            fields["confirmation"] = row.confirmation.map { .string($0.outcome.rawValue) } ?? .null
            fields["confirmation_change_pct"] = .number(row.confirmation?.change.map { $0 * 100 })
            return JSONValue.object(fields)
        }
        return document(kind: "changes", environment: nil, results: results)
    }

    private static func document(
        kind: String, environment: RunEnvironment?, results: [JSONValue], comparison: JSONValue? = nil
    ) -> String {
        var document: [String: JSONValue] = [
            "schema": .string(schema), "kind": .string(kind),
            "environment": environment.map(self.environment) ?? .null, "results": .array(results),
        ]
        document["comparison"] = comparison
        return encodeJSON(JSONValue.object(document))
    }

    private static func environment(_ environment: RunEnvironment) -> JSONValue {
        .object([
            "run_id": .text(environment.runID), "timestamp": .text(environment.timestamp),
            "commit": .text(environment.commit), "commit_source": .text(environment.commitSource?.rawValue ?? ""),
            "build": .text(environment.build.rawValue),
            "target_cpu": .text(environment.targetCPU), "cpu": .text(environment.cpu),
            "cpu_flags": .array(environment.cpuFlags.split(separator: " ").map { .string(String($0)) }),
            "cores": environment.cores > 0 ? .integer(environment.cores) : .null,
            "kernel": .text(environment.kernel), "swift": .text(environment.swift),
            "libraries": .object(environment.libraries.mapValues { .string($0) }),
        ])
    }

    private static func caseFields(_ key: CaseKey) -> [String: JSONValue] {
        [
            "name": .string(key.description), "operation": .string(key.operation.rawValue),
            "backend": .string(key.backend), "size": .integer(key.size), "threads": .integer(key.threads),
        ]
    }

    /// A fraction the CSV or the command line gave to a few decimals, in percent without the
    /// binary noise of multiplying by 100 (`0.07` is `7`, not `7.000000000000001`).
    private static func percent(_ fraction: Double) -> Double {
        (fraction * 1e8).rounded() / 1e6
    }

    private static func result(_ summary: CaseSummary) -> JSONValue {
        let times = summary.times
        return .object(
            caseFields(summary.key).merging([
                "metric": .string(summary.metric.rawValue),
                "status": .string(ReportSchema.status(of: summary)),
                "error": .text(summary.failure ?? ""), "samples": .integer(summary.samples),
                "iterations": .integer(summary.iterations), "ns_median": .number(times?.median),
                "ns_p10": .number(times?.p10), "ns_p90": .number(times?.p90), "ns_min": .number(times?.fastest),
                "ns_mean": .number(times?.mean), "ns_stddev": .number(times?.standardDeviation),
                "cv_pct": .number(times.map { percent($0.coefficientOfVariation) }),
                "ops_per_sec": .number(times?.operationsPerSecond), "mb_per_sec": .number(times?.megabytesPerSecond),
                "allocs_per_op": .number(summary.allocationsPerOperation),
                "instructions_per_op": .number(summary.instructionsPerOperation),
            ]) { $1 })
    }

    private static func part(_ comparison: Comparison) -> JSONValue {
        let counted = comparison.metric == .instructions
        let counts = Dictionary(grouping: comparison.cases, by: \.verdict).mapValues(\.count)
        func run(_ identity: RunIdentity) -> JSONValue {
            .object(["name": .string(identity.name), "environment": identity.environment.map(environment) ?? .null])
        }
        return .object([
            "metric": .string(comparison.metric.rawValue),
            "threshold_pct": .number(percent(comparison.criteria.threshold)),
            // Counts repeat exactly: no test, so no significance level.
            "alpha": counted ? .null : .number(comparison.criteria.alpha),
            "pairing": .string(comparison.pairing == .byProcess ? "pairs" : "independent"),
            "max_pairs": comparison.pairing == .byProcess
                ? .integer(comparison.looks.pairs(atLook: comparison.looks.looks)) : .null,
            "layout": comparison.layout.map { .string($0.rawValue) } ?? .null,
            "regression": .bool(comparison.hasRegression), "inconclusive": .bool(comparison.isInconclusive),
            "verdicts": .object(
                Dictionary(uniqueKeysWithValues: Verdict.allCases.map { ($0.rawValue, .integer(counts[$0] ?? 0)) })),
            "baseline": run(comparison.runs.baseline), "current": run(comparison.runs.current),
            "run_shift_pct": .number(comparison.runShift.map(percent)),
            "run_to_run": comparison.runToRun.map { spread in
                .object([
                    "runs": .integer(spread.runs), "commits": .integer(spread.commits),
                    "cases_measured": .integer(spread.variances.count),
                    "runs_left_out": .object([
                        "other_host": .integer(spread.leftOut.otherHost),
                        "unknown_code": .integer(spread.leftOut.unknownCode),
                        "few_cases": .integer(spread.leftOut.fewCases), "older": .integer(spread.leftOut.older),
                    ]),
                    "drift_floor_pct": .number(percent(spread.driftFloor)),
                ])
            } ?? .null,
            "environment_differences": .array(comparison.environmentDifferences.map(JSONValue.string)),
            "warnings": .array(comparison.warnings.map(JSONValue.string)),
            "cases": .array(
                comparison.cases.map { item in
                    .object(
                        caseFields(item.key).merging([
                            "verdict": .string(item.verdict.rawValue), "method": .string(item.method.rawValue),
                            "baseline_ns_median": .number(item.baselineMedian),
                            "current_ns_median": .number(item.currentMedian),
                            "change_pct": .number(item.change.map { $0 * 100 }),
                            "ci_low_pct": .number(item.interval.map { $0.lowerBound * 100 }),
                            "ci_high_pct": .number(item.interval.map { $0.upperBound * 100 }),
                            "detectable_pct": .number(item.detectable.map { $0 * 100 }),
                            "p_value": .number(item.pValue),
                            "look": item.look.map(JSONValue.integer) ?? .null,
                            "baseline_instructions_per_op": .number(item.baselineInstructions),
                            "current_instructions_per_op": .number(item.currentInstructions),
                        ]) { $1 })
                }),
        ])
    }
}

/// A JSON value built by hand, so that a missing value is written as `null` rather than left out,
/// as synthesized `Encodable` conformances leave out a `nil` optional.
enum JSONValue: Encodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A number, or `null` when there is none (or it is not finite, which JSON cannot hold).
    static func number(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .double(value)
    }

    /// A string, or `null` for the empty string that the CSV uses for a missing value.
    static func text(_ value: String) -> JSONValue {
        value.isEmpty ? .null : .string(value)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let members): try container.encode(members)
        }
    }
}
