/// The unreserved characters of RFC 3986 §2.3, which RFC 7636 §4.1 allows in a verifier.
enum Unreserved {
    /// Whether `byte` is one of `A–Z a–z 0–9 - . _ ~`.
    static func contains(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
