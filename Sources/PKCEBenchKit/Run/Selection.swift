import PKCE

/// Which cases a run measures: the options `--backend`, `--operation`, `--size` and `--threads`.
public struct Selection: Sendable, Equatable {
    /// Backend names; empty for all.
    public var backends: [String]
    /// Operations; empty for all.
    public var operations: [BenchmarkOperation]
    /// Sizes for every selected operation; empty for each operation's defaults.
    public var sizes: [Int]
    /// Threads per case.
    public var threads: Int

    /// The most threads a case may ask for: far beyond any useful contention on a real machine,
    /// and short of exhausting the process's thread limit.
    public static let maximumThreads = 256

    /// The most input one case may hold across its threads: `--size` × `--threads` for sha256 and
    /// random, each thread holding its own buffers.
    public static let maximumInputBytes = 1 << 24

    /// Creates a selection; a name or size given more than once counts once.
    public init(backends: [String] = [], operations: [BenchmarkOperation] = [], sizes: [Int] = [], threads: Int = 1) {
        // A name given twice selects its cases once: two rows for one case would make the report
        // one that no reader accepts.
        self.backends = backends.uniqued()
        self.operations = operations.uniqued()
        self.sizes = sizes.uniqued()
        self.threads = threads
    }

    /// Checks the selection against the backends there are.
    ///
    /// - Parameter available: The names of the backends that can be measured.
    /// - Throws: ``BenchError`` (64) naming the first unknown backend with the valid ones, a size
    ///   an operation does not accept, or a thread count outside 1…``maximumThreads``.
    public func validate(available: [String]) throws(BenchError) {
        for name in backends where !available.contains(name) {
            throw BenchError(
                .usage, "unknown backend '\(name)'; valid backends: \(available.joined(separator: ", "))")
        }
        for operation in operations.isEmpty ? BenchmarkOperation.allCases : operations {
            for size in sizes where !operation.allowedSizes.contains(size) {
                let range = operation.allowedSizes
                throw BenchError(
                    .usage,
                    "size \(size) is invalid for \(operation.rawValue): it takes \(range.lowerBound) to "
                        + "\(range.upperBound) \(operation.sizeUnit)")
            }
        }
        guard (1...Self.maximumThreads).contains(threads) else {
            throw BenchError(.usage, "--threads must be 1 to \(Self.maximumThreads), not \(threads)")
        }
        let largest = sizes.max() ?? 0
        if operations.isEmpty || operations.contains(where: \.reportsByteThroughput),
            largest.multipliedReportingOverflow(by: threads).partialValue > Self.maximumInputBytes
        {
            throw BenchError(
                .usage,
                "--size \(largest) on \(threads) threads is more than \(Self.maximumInputBytes >> 20) MiB of input; "
                    + "use fewer threads or a smaller size")
        }
    }

    /// The selected cases, in report order.
    ///
    /// - Parameter available: The backends to choose from, in their canonical order.
    public func cases(from available: [any PKCEBackend]) -> [BenchmarkCase] {
        let chosen = available.filter { backends.isEmpty || backends.contains($0.name) }
        return (operations.isEmpty ? BenchmarkOperation.allCases : operations).flatMap { operation in
            (sizes.isEmpty ? operation.defaultSizes : sizes).flatMap { size in
                chosen.map { BenchmarkCase(backend: $0, operation: operation, size: size, threads: threads) }
            }
        }
    }
}

extension Array where Element: Hashable {
    /// The elements in order, each only at its first occurrence.
    fileprivate func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
