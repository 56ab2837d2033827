/// What identifies a benchmark case across runs: the row key of every report.
public struct CaseKey: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The backend's `PKCEBackend.name`.
    public var backend: String
    /// The operation measured.
    public var operation: BenchmarkOperation
    /// The verifier length in characters, or the message size in bytes.
    public var size: Int
    /// How many threads ran the operation at once.
    public var threads: Int

    /// Creates a key.
    public init(backend: String, operation: BenchmarkOperation, size: Int, threads: Int) {
        self.backend = backend
        self.operation = operation
        self.size = size
        self.threads = threads
    }

    /// `challenge/openssl/43`, with `×N` appended when more than one thread ran it.
    public var description: String {
        "\(operation.rawValue)/\(backend)/\(size)" + (threads == 1 ? "" : "×\(threads)")
    }

    /// The operation, size and threads this case shares with the other backends' cases.
    public var group: CaseGroup {
        CaseGroup(operation: operation, size: size, threads: threads)
    }

    /// Reports order cases by operation, then size, then backend, so that backends sit side by side.
    public static func < (lhs: CaseKey, rhs: CaseKey) -> Bool {
        (lhs.operation, lhs.size, lhs.threads, lhs.backend) < (rhs.operation, rhs.size, rhs.threads, rhs.backend)
    }
}

/// What the cases of one operation, size and thread count share across backends: a group that
/// tables and charts line the backends up in.
public struct CaseGroup: Hashable, Sendable {
    /// The operation measured.
    public var operation: BenchmarkOperation
    /// The verifier length in characters, or the message size in bytes.
    public var size: Int
    /// How many threads ran the operation at once.
    public var threads: Int
}
