/// A valid ICC profile made as large as a test needs: a real profile with one more tag, a
/// private `zzzz` tag of type `data` holding `extra` bytes, at its end. Little CMS reads it as the
/// profile it was (it never reads the private tag), so it converts colours as the original does.
public enum LargeICCProfile {
    /// `profile` (a version 2 or 4 ICC profile) with the private tag added: the tag table grows by
    /// one entry (every offset moves by 12), the size in the header is the new one, and the
    /// profile ID is zeroed (it would no longer match).
    public static func padding(_ profile: [UInt8], by extra: Int) -> [UInt8] {
        func u32(_ at: Int) -> Int { profile[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        let count = u32(128)
        var table: [UInt8] = []
        for entry in 0..<count {
            let at = 132 + 12 * entry
            table += profile[at..<at + 4] + bigEndian(u32(at + 4) + 12) + profile[at + 8..<at + 12]
        }
        var body = Array(profile[(132 + 12 * count)...])
        while (132 + 12 * (count + 1) + body.count) % 4 != 0 { body.append(0) }
        let tag = Array("data".utf8) + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0x5A, count: extra)
        table += Array("zzzz".utf8) + bigEndian(132 + 12 * (count + 1) + body.count) + bigEndian(tag.count)
        var result = Array(profile[..<128]) + bigEndian(count + 1) + table + body + tag
        while result.count % 4 != 0 { result.append(0) }
        result.replaceSubrange(0..<4, with: bigEndian(result.count))
        result.replaceSubrange(84..<100, with: [UInt8](repeating: 0, count: 16))
        return result
    }
}
