/// Where the code of the two sides of a comparison lay: the linker's placement of functions moves
/// their speed (cache sets, alignment, branch-predictor entries) without any change to the code.
package enum CodeLayout: String, Sendable {
    /// Both builds linked again for every pair of workers, their shared functions in the same
    /// random order on both sides, a new order each pair: a verdict holds over those orders.
    case relinked
    /// Each build's executable as it was linked: one layout a side, so a change that only moves
    /// code can show as a change of speed.
    case asLinked = "as-linked"
    /// One executable on both sides, as `bench pair` measures two backends: one layout.
    case oneBuild = "one-build"
}
