/// A run stopped because the process received a signal.
package struct Interrupted: Error, Sendable {
    /// The signal: `SIGINT` or `SIGTERM`.
    package let signal: Int32
}
