/// What `bench` writes to standard output.
package enum OutputFormat: String, CaseIterable, Sendable {
    case table
    /// The same CSV as the report files, with LF line ends (the files have RFC 4180's CRLF).
    case csv
    /// One JSON object, as ``JSONReport`` and `schema/report.schema.json` describe it.
    case json
    /// A GitHub-flavoured Markdown table, for a pull-request comment.
    case markdown
}
