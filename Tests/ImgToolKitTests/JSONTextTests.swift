import Foundation
import Testing

@testable import ImgToolKit

@Suite("JSON string literals")
struct JSONTextTests {
    @Test("Quotes, backslashes and control characters escaped, all else kept; JSONSerialization reads it back")
    func roundTrip() throws {
        let text = "a \"quoted\" C:\\path\n\r\t\u{01}\u{1F} é 日本 🙂 </script>"
        let literal = JSONText.quoted(text)
        #expect(literal == "\"a \\\"quoted\\\" C:\\\\path\\n\\r\\t\\u0001\\u001f é 日本 🙂 </script>\"")
        let parsed = try JSONSerialization.jsonObject(with: Data("[\(literal)]".utf8)) as? [String]
        #expect(parsed == [text])
    }
}
