/// Writes JSON text into bytes with the log's own primitives (the same number forms and
/// string escapes as a replay log), for programs that write files next to a log: trace
/// exports, reports. Nothing is validated: callers write the punctuation themselves.
public struct JSONWriter {
    var buffer: LogBuffer

    /// An empty writer; `capacity` is a first guess of the size in bytes.
    public init(capacity: Int = 1 << 16) {
        buffer = LogBuffer(capacity: capacity)
    }

    /// A copy of the bytes written so far.
    public var bytes: [UInt8] { buffer.bytes }

    /// Number of bytes written so far.
    public var count: Int { buffer.count }

    /// Calls `body` with the bytes written so far (no copy).
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withBytes(body)
    }

    /// One byte as it is.
    public mutating func byte(_ b: UInt8) { buffer.byte(b) }

    /// Text as it is (punctuation, keys already quoted).
    public mutating func raw(_ s: StaticString) { buffer.raw(s) }

    /// Text as it is.
    public mutating func raw(_ s: String) { buffer.raw(s) }

    /// An integer in decimal.
    public mutating func int(_ value: Int) { buffer.int(value) }

    /// An unsigned integer in decimal.
    public mutating func uint(_ value: UInt64) { buffer.uint(value) }

    /// A finite double in its shortest round-trip form (non-finite values as 0).
    public mutating func double(_ value: Double) { buffer.double(value) }

    /// A JSON string literal with quotes and escapes.
    public mutating func string(_ s: String) { buffer.string(s) }
}
