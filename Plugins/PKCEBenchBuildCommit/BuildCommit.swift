import Foundation
import PackagePlugin

/// Records the commit a target is built from, as `pkceBenchBuildCommit` in a generated
/// `BuildCommit.swift`: the short hash of the package's `HEAD`, `-dirty` appended when tracked
/// files differ from it, or the empty string outside a git checkout. A `main.swift` passes it to
/// `Bench.main(backends:buildCommit:)`, so that each run names the commit its build came from,
/// wherever the executable runs.
///
/// It runs when git rewrites `HEAD`, the index or `HEAD`'s log (a checkout, a commit, an `add`), or
/// a source file of the package changes (which can make it dirty): those files are the command's
/// inputs. A prebuild command, which SwiftPM
/// runs only when it plans the build again, kept an earlier build's commit after a checkout or a
/// commit. The file is rewritten only when the commit changed, so that an unchanged commit
/// compiles nothing again.
@main
struct BuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildCommit.swift")
        return [
            .buildCommand(
                displayName: "Recording the commit \(target.name) is built from",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", Self.script, "sh", context.package.directoryURL.path, output.path],
                inputFiles: Self.gitFiles(of: context.package.directoryURL)
                    + context.package.sourceModules.flatMap { $0.sourceFiles.map(\.url) },
                outputFiles: [output])
        ]
    }

    /// The files git rewrites when the commit checked out in `directory` changes, in the
    /// repository `directory` is in (a worktree's own part, and the part its worktrees share);
    /// none outside a repository.
    static func gitFiles(of directory: URL) -> [URL] {
        let files = FileManager.default
        var directory = directory.standardizedFileURL
        while !files.fileExists(atPath: directory.appending(path: ".git").path) {
            let parent = directory.deletingLastPathComponent()
            guard parent.path != directory.path else { return [] }
            directory = parent
        }
        // `.git` is the repository, or, in a worktree, a file that names the worktree's own part.
        var repository = directory.appending(path: ".git")
        if let text = try? String(contentsOf: repository, encoding: .utf8), text.hasPrefix("gitdir: ") {
            repository = Self.path(text.dropFirst("gitdir: ".count), from: directory)
        }
        // `logs/HEAD` grows with every commit, checkout and reset, where the branch's own ref file
        // may be packed away (and a missing input fails the build).
        let candidates = ["HEAD", "index", "logs/HEAD"].map { repository.appending(path: $0) }
        return candidates.filter { files.fileExists(atPath: $0.path) }
    }

    /// A path as git writes one in a file: absolute, or relative to `base`.
    private static func path(_ text: Substring, from base: URL) -> URL {
        let path = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return (path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appending(path: path)).standardizedFileURL
    }

    /// `sh -c SCRIPT sh PACKAGE OUTPUT`. `--no-optional-locks`: a status that refreshes the index
    /// would write to `.git`, which a sandboxed build may not.
    static let script = """
        set -eu
        package="$1"; output="$2"
        commit=$(git -C "$package" rev-parse --short HEAD 2>/dev/null) || commit=""
        if [ -n "$commit" ] && [ -n "$(git --no-optional-locks -C "$package" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
            commit="$commit-dirty"
        fi
        next="$output.next"
        printf '// Written by the PKCEBenchBuildCommit plugin at build time.\\nlet pkceBenchBuildCommit = "%s"\\n' "$commit" \\
            > "$next"
        if cmp -s "$next" "$output"; then
            rm -f "$next"
        else
            mv "$next" "$output"
        fi
        """
}
