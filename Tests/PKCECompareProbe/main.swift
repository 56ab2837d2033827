import PKCE

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Compares two 128-character `plain` challenges COUNT times with `==`. They differ at POSITION,
// or nowhere with `equal`, so that Callgrind can count whether `==` runs the same instructions
// wherever two secrets differ (HardeningTests runs it).
//
// Usage: PKCECompareProbe POSITION|equal COUNT

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]), arguments[1] == "equal" || Int(arguments[1]) != nil else {
    print("usage: PKCECompareProbe POSITION|equal COUNT")
    exit(64)
}
let policy = PKCEPolicy(allowsPlain: true)
var characters = [UInt8](repeating: UInt8(ascii: "a"), count: 128)
let lhs = try CodeChallenge(validating: String(decoding: characters, as: UTF8.self), method: .plain, policy: policy)
if let position = Int(arguments[1]), characters.indices.contains(position) {
    characters[position] = UInt8(ascii: "b")
}
let rhs = try CodeChallenge(validating: String(decoding: characters, as: UTF8.self), method: .plain, policy: policy)
var equal = 0
for _ in 0..<count {
    // The result's bit, not a branch on it, so that the loop's own instructions are the same
    // whatever the answer (an unoptimised `? 1 : 0` branches).
    equal &+= Int(unsafeBitCast(lhs == rhs, to: UInt8.self))
}
print(equal)
