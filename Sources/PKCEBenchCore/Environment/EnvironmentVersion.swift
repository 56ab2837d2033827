/// The versions of the software a run was made with, beside its ``Host``: they change on one
/// machine over time, and a change can move its figures.
package struct EnvironmentVersion: Sendable, Hashable {
    /// The kernel release, from `uname -r`.
    package var kernel: String
    /// The Swift compiler's version (``SwiftVersion/current``).
    package var swift: String
    /// Each backend's `PKCEBackend.library`, by backend name.
    package var libraries: [String: String]

    package init(kernel: String, swift: String, libraries: [String: String]) {
        self.kernel = kernel
        self.swift = swift
        self.libraries = libraries
    }

    /// The same kernel and Swift; the libraries aside, which a run records backend by backend.
    package func isSameKernelAndSwift(as other: EnvironmentVersion) -> Bool {
        kernel == other.kernel && swift == other.swift
    }
}
