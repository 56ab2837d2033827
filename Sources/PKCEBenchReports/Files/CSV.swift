package struct CSVRecord: Sendable, Equatable {
    /// The 1-based line the record starts on; a quoted field may carry it over several lines.
    package let line: Int
    /// The fields, unquoted.
    package let fields: [String]
}

package struct CSVTable: Sendable, Equatable {
    package let header: [String]
    /// Each with as many fields as the header.
    package let records: [CSVRecord]
}

package struct CSVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line.
    package let line: Int
    /// The 1-based column, in characters, where one applies.
    package let column: Int?
    package let message: String

    package var description: String {
        "line \(line)" + (column.map { ", column \($0)" } ?? "") + ": \(message)"
    }
}

/// RFC 4180 CSV: the writer quotes what needs quoting, the reader accepts nothing else.
///
/// The reader (``CSVReader``) is strict where lenient readers guess (stray quotes and carriage
/// returns, NUL, invalid UTF-8, ragged records, fields beyond their ``Limits`` are errors with a
/// line and column); lines end in CRLF or LF, empty ones are skipped. yaslab/CSV.swift accepts
/// malformed quoting silently and reports no positions.
package enum CSV {
    package enum LineEnding: String, Sendable {
        /// CRLF, as RFC 4180 has it: every file this package writes.
        case crlf = "\r\n"
        /// LF: everything written to standard output, for `awk`, `cut` and `grep`.
        case lf = "\n"
    }

    /// A field is quoted when it contains a comma, a double quote, CR or LF, or starts or ends
    /// with a space, and when it is the only field of its record and empty; double quotes in it
    /// are doubled.
    package static func encodeRecord(_ fields: [String], lineEnding: LineEnding = .crlf) -> String {
        // A record of one empty field would be an empty line, which readers skip: quote it.
        if fields == [""] { return "\"\"" + lineEnding.rawValue }
        return fields.map(encodeField).joined(separator: ",") + lineEnding.rawValue
    }

    package static func encode(header: [String], records: [[String]], lineEnding: LineEnding = .crlf) -> String {
        ([header] + records).map { encodeRecord($0, lineEnding: lineEnding) }.joined()
    }

    /// Works on UTF-8 bytes, as the reader does. A `Character` would not do: a quote followed by a
    /// combining mark is one character that is not `"`, and would go out undoubled.
    private static func encodeField(_ field: String) -> String {
        let needsQuotes =
            field.utf8.contains { $0 == comma || $0 == quote || $0 == cr || $0 == lf }
            || field.utf8.first == space || field.utf8.last == space
        guard needsQuotes else { return field }
        var quoted: [UInt8] = [quote]
        quoted.reserveCapacity(field.utf8.count + 2)
        for byte in field.utf8 {
            if byte == quote { quoted.append(quote) }
            quoted.append(byte)
        }
        quoted.append(quote)
        return String(decoding: quoted, as: UTF8.self)
    }

    private static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"),
        lf = UInt8(ascii: "\n"), space = UInt8(ascii: " ")

    /// How much a table may hold, checked as it is read: without bounds a file of commas takes
    /// dozens of times its size in memory as fields.
    package struct Limits: Sendable, Equatable {
        /// The most columns a header may name.
        package var columns: Int
        /// The most bytes a field may hold (unquoted), by its column's name.
        package var fieldBytes: [String: Int]
        /// The most bytes of a field of any other column, and of a column's name.
        package var otherFieldBytes: Int

        package init(columns: Int = 256, fieldBytes: [String: Int] = [:], otherFieldBytes: Int = 4096) {
            self.columns = columns
            self.fieldBytes = fieldBytes
            self.otherFieldBytes = otherFieldBytes
        }
    }

    /// The first record is the header. Throws ``CSVError`` at the first thing that is not RFC 4180
    /// CSV, an empty file included, or that `limits` do not allow.
    package static func parse(_ bytes: some Collection<UInt8>, limits: Limits = Limits()) throws(CSVError) -> CSVTable {
        var reader = try CSVReader(bytes, limits: limits)
        var records: [CSVRecord] = []
        while let record = try reader.next() {
            records.append(record)
        }
        return CSVTable(header: reader.header, records: records)
    }
}
