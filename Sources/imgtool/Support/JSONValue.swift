import ImgToolKit

/// A JSON value printed with sorted keys and no whitespace, so output is stable for tests and
/// tools (`jq`) alike.
enum JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .int(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }

    /// A number rounded to 3 decimals, printed as an integer when it is one.
    static func milliseconds(_ value: Double) -> JSONValue {
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return .int(Int(rounded)) }
        return .double(rounded)
    }

    static func optional(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }

    var serialized: String {
        switch self {
        case .string(let text): return JSONText.quoted(text)
        case .int(let value): return String(value)
        case .double(let value): return value.isFinite ? String(value) : "null"
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .array(let values): return "[" + values.map(\.serialized).joined(separator: ",") + "]"
        case .object(let members):
            return "{"
                + members.keys.sorted().map { JSONText.quoted($0) + ":" + (members[$0]?.serialized ?? "null") }
                .joined(separator: ",") + "}"
        }
    }
}
