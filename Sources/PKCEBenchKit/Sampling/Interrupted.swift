/// A run stopped because the process received a signal.
public struct Interrupted: Error, Sendable {
    /// The signal: `SIGINT` or `SIGTERM`.
    public let signal: Int32
}
