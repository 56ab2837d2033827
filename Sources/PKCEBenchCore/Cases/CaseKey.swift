/// What identifies a benchmark case across runs: the row key of every report.
package struct CaseKey: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The backend's `PKCEBackend.name`.
    package var backend: String
    package var operation: BenchmarkOperation
    /// The verifier length in characters, or the message size in bytes.
    package var size: Int
    package var threads: Int

    package init(backend: String, operation: BenchmarkOperation, size: Int, threads: Int) {
        self.backend = backend
        self.operation = operation
        self.size = size
        self.threads = threads
    }

    /// `challenge/openssl/43`, with `×N` appended when more than one thread ran it.
    package var description: String {
        "\(operation.rawValue)/\(backend)/\(size)" + (threads == 1 ? "" : "×\(threads)")
    }

    /// The key a ``description`` names, or `nil` for a string that names none.
    package init?(name: String) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let operation = BenchmarkOperation(rawValue: String(parts[0])), !parts[1].isEmpty
        else { return nil }
        let sizeAndThreads = parts[2].split(separator: "×", omittingEmptySubsequences: false)
        guard let size = Int(sizeAndThreads[0]), size > 0, sizeAndThreads.count <= 2 else { return nil }
        var threads = 1
        if sizeAndThreads.count == 2 {
            guard let count = Int(sizeAndThreads[1]), count > 1 else { return nil }
            threads = count
        }
        self.init(backend: String(parts[1]), operation: operation, size: size, threads: threads)
    }

    /// This case under `backend`'s name, or unchanged for `nil`: how a comparison of two backends
    /// lines one's case up with the other's.
    package func withBackend(_ backend: String?) -> CaseKey {
        var key = self
        if let backend { key.backend = backend }
        return key
    }

    package var group: CaseGroup {
        CaseGroup(operation: operation, size: size, threads: threads)
    }

    /// Reports order cases by operation, then size, then backend, so that backends sit side by side.
    package static func < (lhs: CaseKey, rhs: CaseKey) -> Bool {
        (lhs.operation, lhs.size, lhs.threads, lhs.backend) < (rhs.operation, rhs.size, rhs.threads, rhs.backend)
    }
}

/// What the cases of one operation, size and thread count share across backends: a group that
/// tables and charts line the backends up in.
package struct CaseGroup: Hashable, Sendable {
    package var operation: BenchmarkOperation
    /// The verifier length in characters, or the message size in bytes.
    package var size: Int
    package var threads: Int
}
