import Foundation

/// Facts about the machine, read when asked.
enum SystemFacts {
    /// The CPU features worth recording: SHA extensions, which OpenSSL and BoringSSL use for
    /// SHA-256, and the vector extensions their other code paths depend on.
    static let relevantFlags = ["sha_ni", "avx2", "avx512f"]

    /// The `model name` of the first CPU in `/proc/cpuinfo`, or the machine architecture.
    static func cpuModel() -> String {
        cpuInfoValue("model name") ?? machine()
    }

    /// Which of ``relevantFlags`` the CPU has, space-separated.
    static func cpuFlags() -> String {
        let flags = Set((cpuInfoValue("flags") ?? "").split(separator: " ").map(String.init))
        return relevantFlags.filter(flags.contains).joined(separator: " ")
    }

    static func kernelRelease() -> String {
        unameField(\.release)
    }

    /// The short hash of the commit checked out in `directory` (by default the current one), and
    /// whether a tracked file differs from it; `nil` outside a git checkout.
    static func gitCheckout(in directory: String? = nil) -> (shortHash: String, isDirty: Bool)? {
        let place = directory.map { ["-C", $0] } ?? []
        guard let commit = run("git", place + ["rev-parse", "--short", "HEAD"]), !commit.isEmpty else { return nil }
        let changes = run("git", place + ["status", "--porcelain", "--untracked-files=no"]) ?? ""
        return (commit, !changes.isEmpty)
    }

    /// The full hash of the commit `revision` names in the repository around the working directory,
    /// or `nil` when there is none (no git, no repository, no such revision).
    package static func commitHash(of revision: String) -> String? {
        guard let hash = run("git", ["rev-parse", "--verify", "--quiet", "--end-of-options", "\(revision)^{commit}"]),
            !hash.isEmpty
        else {
            return nil
        }
        return hash
    }

    private static func machine() -> String {
        unameField(\.machine)
    }

    private static func unameField<Field>(_ field: KeyPath<utsname, Field>) -> String {
        var names = utsname()
        uname(&names)
        return withUnsafeBytes(of: names[keyPath: field]) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    private static func cpuInfoValue(_ key: String) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == key {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// Runs a program found on `PATH` and returns its trimmed standard output, or `nil` when it
    /// cannot start or exits non-zero.
    static func run(_ program: String, _ arguments: [String]) -> String? {
        guard let executable = executableInPath(program),
            let result = try? ChildProcess.run(executable, arguments), result.succeeded
        else { return nil }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
