import Foundation
import PackagePlugin

/// Records the commit a target is built from, as `pkceBenchBuildCommit` in a generated
/// `BuildCommit.swift`: the short hash of the package's `HEAD`, `-dirty` appended when tracked
/// files differ from it, or the empty string outside a git checkout. A `main.swift` passes it to
/// `Bench.main(backends:buildCommit:)`, so that each run names the commit its build came from,
/// wherever the executable runs.
///
/// It runs before every build, as a prebuild command (git must be asked each time: no input file
/// says when `HEAD` moved), and rewrites the file only when the commit changed, so that an
/// unchanged commit compiles nothing again.
@main
struct BuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        return [
            .prebuildCommand(
                displayName: "Recording the commit \(target.name) is built from",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", Self.script, "sh", context.package.directoryURL.path, output.path],
                outputFilesDirectory: output)
        ]
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
        mkdir -p "$output"
        # Beside the folder, not in it: a build stopped halfway leaves nothing there to compile.
        next="$output.next"
        printf '// Written by the PKCEBenchBuildCommit plugin at build time.\\nlet pkceBenchBuildCommit = "%s"\\n' "$commit" \\
            > "$next"
        if cmp -s "$next" "$output/BuildCommit.swift"; then
            rm -f "$next"
        else
            mv "$next" "$output/BuildCommit.swift"
        fi
        """
}
