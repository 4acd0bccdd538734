/// A growable byte buffer with the JSON primitives the replay log needs, written by hand so
/// that encoding an event allocates nothing: every primitive reserves its worst case once,
/// then stores through a raw pointer (no per-byte capacity or uniqueness checks).
///
/// A value type: copies share storage until one of them is written (copy on write).
struct LogBuffer {
    /// Owns the allocation; its uniqueness is the copy-on-write test.
    final class Owner {
        let base: UnsafeMutablePointer<UInt8>
        init(capacity: Int) { base = .allocate(capacity: capacity) }
        deinit { base.deallocate() }
    }

    private var owner: Owner
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    /// Lines' `t` rounded to whole nanoseconds (`time(_:)`): for times read from a real
    /// clock, which resolves no finer. Off: `t` as the shortest form that reads back exactly
    /// (a virtual clock's times, byte-identical runs).
    var nanosecondTimes = false
    /// Set while one mutating call that made the storage unique writes a whole line (`event`):
    /// no copy of the buffer can exist meanwhile, so its primitives skip the uniqueness test
    /// (one call into the runtime per primitive, ~94 instructions an event).
    private var heldUnique = false

    init(capacity: Int = 1 << 16) {
        let capacity = max(capacity, 256)
        owner = Owner(capacity: capacity)
        base = owner.base
        self.capacity = capacity
    }

    /// A copy of the bytes written so far.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
    var isEmpty: Bool { count == 0 }
    mutating func removeAll() {
        if !isKnownUniquelyReferenced(&owner) { reallocate(capacity) }
        count = 0
    }

    /// Makes room for `n` more bytes (and makes the storage unique).
    @inline(__always) mutating func reserve(_ n: Int) {
        if _slowPath(count &+ n > capacity || !heldUnique && !isKnownUniquelyReferenced(&owner)) {
            reallocate(max(capacity, count + n, capacity &* 2 > count + n ? capacity &* 2 : count + n))
        }
    }

    /// Runs `body`, which writes into this buffer, with the storage made unique once for all
    /// of its primitives (see `heldUnique`).
    @inline(__always) mutating func holdingUnique(_ body: (inout LogBuffer) -> Void) {
        reserve(0)
        heldUnique = true
        body(&self)
        heldUnique = false
    }

    @inline(never) private mutating func reallocate(_ newCapacity: Int) {
        let fresh = Owner(capacity: newCapacity)
        fresh.base.update(from: base, count: count)
        owner = fresh
        base = fresh.base
        capacity = newCapacity
    }

    /// Stores without checking: the caller reserved room.
    @inline(__always) mutating func put(_ b: UInt8) {
        base[count] = b
        count &+= 1
    }

    @inline(__always) mutating func byte(_ b: UInt8) {
        reserve(1)
        put(b)
    }

    @inline(__always) mutating func append(_ p: UnsafePointer<UInt8>, _ n: Int) {
        reserve(n)
        (base + count).update(from: p, count: n)
        count &+= n
    }

    /// Appends ASCII text that needs no escaping (keys, enum names).
    @inline(__always) mutating func raw(_ s: StaticString) {
        append(s.utf8Start, s.utf8CodeUnitCount)
    }

    /// Text that needs no escaping; disfavoured so that plain literals take the
    /// `StaticString` overload (no String at all).
    @_disfavoredOverload
    mutating func raw(_ s: String) {
        var s = s
        s.withUTF8 { if let p = $0.baseAddress { append(p, $0.count) } }
    }

    /// A non-negative or negative integer in decimal.
    @inline(__always) mutating func int(_ value: Int) {
        if value < 0 {
            reserve(21)
            put(UInt8(ascii: "-"))
            putDigits(UInt64(value.magnitude))
        } else {
            reserve(20)
            putDigits(UInt64(value))
        }
    }

    @inline(__always) mutating func uint(_ value: UInt64) {
        reserve(20)
        putDigits(value)
    }

    /// "00" through "99": digits are written two at a time, one division by 100 a pair.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899
        """

    /// Writes the last `n` digits of `value` (leading zeros included) ending at `end`.
    @inline(__always) private func putDigits(_ value: UInt64, count n: Int, endingAt end: Int) {
        let pairs = LogBuffer.digitPairs.utf8Start
        var v = value
        var i = end
        var left = n
        while left >= 2 {
            let (q, r) = v.quotientAndRemainder(dividingBy: 100)
            i &-= 2
            base[i] = pairs[Int(r) &* 2]
            base[i &+ 1] = pairs[Int(r) &* 2 &+ 1]
            v = q
            left &-= 2
        }
        if left == 1 { base[i &- 1] = 48 &+ UInt8(truncatingIfNeeded: v % 10) }
    }

    /// Decimal digits of `value`; the caller reserved 20 bytes.
    @inline(__always) mutating func putDigits(_ value: UInt64) {
        if value < 10 {
            put(48 &+ UInt8(truncatingIfNeeded: value))
            return
        }
        var n = 1
        var p: UInt64 = 10
        while value >= p {
            n &+= 1
            if n == 20 { break }
            p &*= 10
        }
        count &+= n
        putDigits(value, count: n, endingAt: count)
    }

    /// A line's `t`: with `nanosecondTimes`, seconds rounded to the nanosecond and written
    /// with integer arithmetic ("12", "0.5", "3.000123457"); otherwise as `double`. The
    /// shortest round-trip form of a clock's reading needs 16-17 digits, found by a search:
    /// about 600 instructions a line, a quarter of what a recorder's writer spent on an event.
    @inline(__always) mutating func time(_ t: Double) {
        guard nanosecondTimes, t >= 0, t < 1e9 else {
            double(t)
            return
        }
        let ns = UInt64((t * 1e9).rounded())
        var fraction = ns % 1_000_000_000
        reserve(31)
        putDigits(ns / 1_000_000_000)
        guard fraction != 0 else { return }
        var places = 9
        while fraction % 10 == 0 {
            fraction /= 10
            places &-= 1
        }
        put(UInt8(ascii: "."))
        putFraction(fraction, places: places)
    }

    /// `fraction` as exactly `places` digits, with leading zeros; the caller reserved them.
    @inline(__always) private mutating func putFraction(_ fraction: UInt64, places: Int) {
        count &+= places
        putDigits(fraction, count: places, endingAt: count)
    }

    /// A finite double, shortest round-trip form ("0.3", "12", "1e-07"); non-finite values
    /// (never produced by the library) are written as 0 so the line stays valid JSON.
    /// Integers below 10^15 are written without ".0"; other values exactly as `description`
    /// writes them (the common ones by `ShortestDecimal`, the rest by `description`).
    mutating func double(_ value: Double) {
        guard value.isFinite else {
            byte(48)
            return
        }
        let mag = abs(value)
        if mag < 1e15, value == value.rounded(.towardZero) {
            int(Int(value))
            return
        }
        if mag >= 1e-4, mag < 1e15, let d = ShortestDecimal(mag) {
            reserve(44)
            if value < 0 { put(UInt8(ascii: "-")) }
            putDigits(d.integer)
            put(UInt8(ascii: "."))
            putFraction(d.fraction, places: d.places)
            return
        }
        raw(value.description)
    }

    /// A JSON string literal with quotes; control characters as \u00XX.
    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            // Worst case: every byte becomes \u00XX.
            reserve(utf8.count &* 6 &+ 2)
            put(34)
            guard let src = utf8.baseAddress else {
                put(34)
                return
            }
            var start = 0
            for i in 0..<utf8.count {
                let c = src[i]
                guard c < 0x20 || c == 34 || c == 92 || c == 0x7F else { continue }
                if start < i {
                    (base + count).update(from: src + start, count: i - start)
                    count &+= i - start
                }
                start = i + 1
                put(92)
                switch c {
                case 34: put(34)
                case 92: put(92)
                case 10: put(UInt8(ascii: "n"))
                case 13: put(UInt8(ascii: "r"))
                case 9: put(UInt8(ascii: "t"))
                default:
                    put(UInt8(ascii: "u"))
                    put(48)
                    put(48)
                    put(LogBuffer.hexDigit(c >> 4))
                    put(LogBuffer.hexDigit(c & 15))
                }
            }
            if start < utf8.count {
                (base + count).update(from: src + start, count: utf8.count - start)
                count &+= utf8.count - start
            }
            put(34)
        }
    }

    @inline(__always) static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 48 &+ v : 87 &+ v }

    /// `"key":` (key must need no escaping).
    @inline(__always) mutating func key(_ k: StaticString) {
        let n = k.utf8CodeUnitCount
        reserve(n &+ 3)
        put(34)
        (base + count).update(from: k.utf8Start, count: n)
        count &+= n
        put(34)
        put(58)
    }

    /// `,"key":`
    @inline(__always) mutating func nextKey(_ k: StaticString) {
        let n = k.utf8CodeUnitCount
        reserve(n &+ 4)
        put(44)
        put(34)
        (base + count).update(from: k.utf8Start, count: n)
        count &+= n
        put(34)
        put(58)
    }

    mutating func append(_ other: LogBuffer) {
        if other.count > 0 { append(other.base, other.count) }
    }

    mutating func appendBytes(_ b: UnsafeRawBufferPointer) {
        guard let p = b.baseAddress, b.count > 0 else { return }
        append(p.assumingMemoryBound(to: UInt8.self), b.count)
    }

    /// The bytes from `offset` on, valid until this buffer is next changed or released (for a
    /// loop that copies them into other buffers: `withBytes` there kept the storage retained
    /// for each call).
    @inline(__always) func unsafeBytes(from offset: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + offset, count: count &- offset)
    }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }
}
