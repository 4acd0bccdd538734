/// A JSON value with the line and column where it starts, from `JSONParser`.
public indirect enum JSONValue: Sendable, Equatable {
    case object([JSONMember])
    case array([JSONNode])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// What the value is, for messages ("a string", "an object").
    var typeName: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "true or false"
        case .null: "null"
        }
    }
}

/// A position in a text: 1-based line and column (columns count Unicode scalars).
public struct JSONPosition: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var description: String { "\(line):\(column)" }
}

/// A value and where it starts.
public struct JSONNode: Sendable, Equatable {
    public var value: JSONValue
    public var position: JSONPosition
}

/// An object member, in file order.
public struct JSONMember: Sendable, Equatable {
    public var key: String
    public var keyPosition: JSONPosition
    public var value: JSONNode
}

/// A syntax error with its position.
public struct JSONSyntaxError: Error, Sendable, Equatable {
    public var position: JSONPosition
    public var message: String
}
