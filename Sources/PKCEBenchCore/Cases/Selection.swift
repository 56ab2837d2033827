import PKCE

/// Which cases a run measures: the options `--backend`, `--operation`, `--size`, `--filter`,
/// `--skip` and `--threads`.
///
/// A case's name is its ``CaseKey/description``, `operation/backend/size` (`challenge/sodium/43`),
/// in every report, message and listing; `--filter` and `--skip` select by it.
package struct Selection: Sendable, Equatable, Codable {
    /// Backend names; empty for all.
    package var backends: [String]
    /// Operations; empty for all, or, when only scoped sizes are given, the operations they name.
    package var operations: [BenchmarkOperation]
    /// Sizes for every selected operation that ``scopedSizes`` does not name; empty for the sizes
    /// ``keys`` name, or, without keys, each operation's defaults.
    package var sizes: [Int]
    /// Sizes for one operation each (`--size sha256:1024`), in place of ``sizes`` and the defaults.
    package var scopedSizes: [BenchmarkOperation: [Int]]
    /// Regular expressions a case's name must match one of; empty for any name.
    package var filters: [String]
    /// Regular expressions a case's name must match none of.
    package var skips: [String]
    /// The cases by key, for a selection made in code rather than from a command line; empty for
    /// any case. A key no backend has selects nothing.
    package var keys: [CaseKey]
    package var threads: Int

    /// The most threads a case may ask for: far beyond any useful contention on a real machine,
    /// and short of exhausting the process's thread limit.
    package static let maximumThreads = 256

    /// The most input one case may hold across its threads: `--size` × `--threads` for sha256 and
    /// random, each thread holding its own buffers.
    package static let maximumInputBytes = 1 << 24

    package init(
        backends: [String] = [], operations: [BenchmarkOperation] = [], sizes: [Int] = [],
        scopedSizes: [BenchmarkOperation: [Int]] = [:], filters: [String] = [], skips: [String] = [],
        keys: [CaseKey] = [], threads: Int = 1
    ) {
        // A name given twice selects its cases once: two rows for one case would make the report
        // one that no reader accepts.
        self.backends = backends.uniqued()
        self.operations = operations.uniqued()
        self.sizes = sizes.uniqued()
        self.scopedSizes = scopedSizes.mapValues { $0.uniqued() }
        self.filters = filters.uniqued()
        self.skips = skips.uniqued()
        self.keys = keys.uniqued()
        self.threads = threads
    }

    /// Decodes a selection through ``init(backends:operations:sizes:scopedSizes:filters:skips:keys:threads:)``,
    /// so that a decoded one counts each name once, as one made in memory does. A selection from
    /// another build may have no keys.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            backends: try container.decode([String].self, forKey: .backends),
            operations: try container.decode([BenchmarkOperation].self, forKey: .operations),
            sizes: try container.decode([Int].self, forKey: .sizes),
            scopedSizes: try container.decode([BenchmarkOperation: [Int]].self, forKey: .scopedSizes),
            filters: try container.decode([String].self, forKey: .filters),
            skips: try container.decode([String].self, forKey: .skips),
            keys: try container.decodeIfPresent([CaseKey].self, forKey: .keys) ?? [],
            threads: try container.decode(Int.self, forKey: .threads))
    }

    /// The operations measured: those given, else those the scoped sizes name when no other size
    /// is given, else all.
    package var selectedOperations: [BenchmarkOperation] {
        if !operations.isEmpty { return operations }
        if !scopedSizes.isEmpty && sizes.isEmpty {
            return BenchmarkOperation.allCases.filter { scopedSizes[$0] != nil }
        }
        return BenchmarkOperation.allCases
    }

    /// The sizes measured of `operation`: those given for it, or for every operation, or else
    /// those its ``keys`` name (a key names its size, which need not be a default one), or else
    /// its default sizes.
    package func sizes(of operation: BenchmarkOperation) -> [Int] {
        if let scoped = scopedSizes[operation] { return scoped }
        if !sizes.isEmpty { return sizes }
        if !keys.isEmpty { return keys.filter { $0.operation == operation }.map(\.size).uniqued().sorted() }
        return operation.defaultSizes
    }

    /// - Throws: ``BenchError``: `.usage` naming the first option that selects nothing or is out of range.
    package func validate(available: [String]) throws(BenchError) {
        for name in backends where !available.contains(name) {
            throw BenchError(
                .usage, "unknown backend '\(name)'; valid backends: \(available.joined(separator: ", "))")
        }
        let selected = selectedOperations
        for operation in BenchmarkOperation.allCases where scopedSizes[operation] != nil {
            guard selected.contains(operation) else {
                throw BenchError(
                    .usage, "--size \(operation.rawValue):… names an operation that --operation does not select")
            }
        }
        if let size = sizes.first, selected.allSatisfy({ scopedSizes[$0] != nil }) {
            throw BenchError(
                .usage, "--size \(size) applies to no operation: each selected operation has OPERATION:SIZE sizes")
        }
        for operation in selected {
            for size in sizes(of: operation) where !operation.allowedSizes.contains(size) {
                let range = operation.allowedSizes
                let hint =
                    scopedSizes[operation] == nil && selected.count > 1
                    ? "; scope a size to one operation with --size OPERATION:SIZE" : ""
                throw BenchError(
                    .usage,
                    "size \(size) is invalid for \(operation.rawValue): it takes \(range.lowerBound) to "
                        + "\(range.upperBound) \(operation.sizeUnit)\(hint)")
            }
        }
        guard (1...Self.maximumThreads).contains(threads) else {
            throw BenchError(.usage, "--threads must be 1 to \(Self.maximumThreads), not \(threads)")
        }
        let largest = selected.filter(\.reportsByteThroughput).flatMap(sizes(of:)).max() ?? 0
        if largest.multipliedReportingOverflow(by: threads).partialValue > Self.maximumInputBytes {
            throw BenchError(
                .usage,
                "--size \(largest) on \(threads) threads is more than \(Self.maximumInputBytes >> 20) MiB of input; "
                    + "use fewer threads or a smaller size")
        }
        let patterns = try CasePatterns(filters: filters, skips: skips)
        if !filters.isEmpty || !skips.isEmpty, keys(backends: available, patterns: patterns).isEmpty {
            throw BenchError(.usage, "--filter and --skip leave no case to measure; 'bench list' shows the names")
        }
    }

    /// The selected cases, in report order: backends in the order of `available`.
    ///
    /// - Precondition: Every size is one its operation accepts, as ``validate(available:)`` checks.
    /// - Throws: ``BenchError``: `.usage` when a pattern is not a regular expression.
    package func cases(from available: [any PKCEBackend]) throws(BenchError) -> [BenchmarkCase] {
        let backendsByName = Dictionary(available.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let patterns = try CasePatterns(filters: filters, skips: skips)
        return keys(backends: available.map(\.name), patterns: patterns).map { key in
            BenchmarkCase(
                backend: backendsByName[key.backend]!, operation: key.operation, size: key.size, threads: threads)
        }
    }

    /// What tells whether a row of an earlier run belongs to the selection: its backend,
    /// operation and name are selected, and its size is when sizes are given for its operation.
    /// Its threads are not looked at.
    ///
    /// - Throws: ``BenchError``: `.usage` when a pattern is not a regular expression.
    package func rowMatcher() throws(BenchError) -> (CaseKey) -> Bool {
        let patterns = try CasePatterns(filters: filters, skips: skips)
        let operations = selectedOperations
        return { key in
            let sizesGiven = scopedSizes[key.operation] ?? sizes
            return (backends.isEmpty || backends.contains(key.backend)) && operations.contains(key.operation)
                && (sizesGiven.isEmpty || sizesGiven.contains(key.size)) && (keys.isEmpty || keys.contains(key))
                && patterns.admit(key.description)
        }
    }

    /// What tells whether a case is one that ``cases(from:)`` makes from a backend of its name:
    /// what a worker, which is perhaps another build with backends of its own, may measure for this
    /// selection. Unlike ``rowMatcher()``, it looks at the threads, and at the sizes when none are
    /// given, and a backend's name must follow ``BackendNames``'s rule.
    ///
    /// - Precondition: As for ``cases(from:)``.
    /// - Throws: ``BenchError``: `.usage` when a pattern is not a regular expression.
    package func caseMatcher() throws(BenchError) -> (CaseKey) -> Bool {
        let patterns = try CasePatterns(filters: filters, skips: skips)
        return { key in
            BackendNames.isValid(key.backend) && keys(backends: [key.backend], patterns: patterns).contains(key)
        }
    }

    private func keys(backends names: [String], patterns: CasePatterns) -> [CaseKey] {
        let chosen = names.filter { backends.isEmpty || backends.contains($0) }
        return selectedOperations.flatMap { operation in
            sizes(of: operation).flatMap { size in
                chosen.map { CaseKey(backend: $0, operation: operation, size: size, threads: threads) }
            }
        }.filter { (keys.isEmpty || keys.contains($0)) && patterns.admit($0.description) }
    }
}

/// The compiled `--filter` and `--skip` patterns: a name is admitted when it contains a match of
/// some filter (or there are none) and of no skip.
private struct CasePatterns {
    let filters: [Regex<AnyRegexOutput>]
    let skips: [Regex<AnyRegexOutput>]

    init(filters: [String], skips: [String]) throws(BenchError) {
        self.filters = try filters.map { pattern throws(BenchError) in try Self.compile(pattern, option: "--filter") }
        self.skips = try skips.map { pattern throws(BenchError) in try Self.compile(pattern, option: "--skip") }
    }

    func admit(_ name: String) -> Bool {
        (filters.isEmpty || filters.contains { name.contains($0) }) && !skips.contains { name.contains($0) }
    }

    private static func compile(_ pattern: String, option: String) throws(BenchError) -> Regex<AnyRegexOutput> {
        do {
            return try Regex(pattern)
        } catch {
            let reason = String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
            throw BenchError(.usage, "\(option) '\(pattern)' is not a regular expression: \(reason)")
        }
    }
}
