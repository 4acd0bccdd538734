/// A JSON value with the line and column where it starts, from `JSONParser`.
package indirect enum JSONValue: Sendable, Equatable {
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
package struct JSONPosition: Sendable, Equatable, CustomStringConvertible {
    package var line: Int
    package var column: Int
    package var description: String { "\(line):\(column)" }
}

/// A value and where it starts.
package struct JSONNode: Sendable, Equatable {
    package var value: JSONValue
    package var position: JSONPosition
}

/// An object member, in file order.
package struct JSONMember: Sendable, Equatable {
    package var key: String
    package var keyPosition: JSONPosition
    package var value: JSONNode
}

/// A syntax error with its position.
package struct JSONSyntaxError: Error, Sendable, Equatable {
    package var position: JSONPosition
    package var message: String
}
