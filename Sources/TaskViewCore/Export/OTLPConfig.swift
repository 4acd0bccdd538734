/// Where and how the live OTLP stream goes, read from the standard `OTEL_*` variables.
package struct OTLPConfig: Equatable, Sendable {
    /// `http/protobuf` (the default) or `http/json`.
    package enum WireProtocol: String, Sendable {
        case protobuf = "http/protobuf"
        case json = "http/json"
    }

    /// The traces URL as given or made (`http://host:port/v1/traces`).
    package var url: String
    package var host: String
    package var port: Int
    /// The request target (`/v1/traces`).
    package var path: String
    package var wire: WireProtocol = .protobuf
    package var headers: [(name: String, value: String)] = []
    /// Seconds a send may take (`..._TIMEOUT`, milliseconds; default 10 s).
    package var timeout: Double = 10
    package var serviceName = "taskview"
    /// `OTEL_RESOURCE_ATTRIBUTES`, without `service.name`.
    package var resourceAttributes: [(key: String, value: String)] = []

    package static func == (a: OTLPConfig, b: OTLPConfig) -> Bool {
        a.url == b.url && a.wire == b.wire && a.timeout == b.timeout && a.serviceName == b.serviceName
            && a.headers.map { "\($0.name)=\($0.value)" } == b.headers.map { "\($0.name)=\($0.value)" }
            && a.resourceAttributes.map { "\($0.key)=\($0.value)" }
                == b.resourceAttributes.map { "\($0.key)=\($0.value)" }
    }

    /// A variable that cannot be used: its name and what is wrong.
    package struct Problem: Error, Equatable, CustomStringConvertible {
        package var variable: String
        package var reason: String
        /// A well-formed setting taskview cannot use (an https:// endpoint), not a mistake.
        package var unsupported = false
        package var description: String { "\(variable): \(reason)" }
    }

    /// Whether the environment asks for the stream (an endpoint variable is set).
    package static func requested(by env: [String: String]) -> Bool {
        env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].map { !$0.isEmpty } == true
            || env["OTEL_EXPORTER_OTLP_ENDPOINT"].map { !$0.isEmpty } == true
    }

    /// The configuration the environment gives (the specific `..._TRACES_...` variable before
    /// the general one; without an endpoint, OTLP/HTTP's default `http://localhost:4318`).
    package static func from(_ env: [String: String]) throws(Problem) -> OTLPConfig {
        func value(_ name: String) -> (String, String)? {
            for v in ["OTEL_EXPORTER_OTLP_TRACES_" + name, "OTEL_EXPORTER_OTLP_" + name] {
                if let x = env[v], !x.isEmpty { return (v, x) }
            }
            return nil
        }
        var config: OTLPConfig
        if let t = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], !t.isEmpty {
            config = try parseURL(t, variable: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", appending: nil)
        } else if let base = env["OTEL_EXPORTER_OTLP_ENDPOINT"], !base.isEmpty {
            config = try parseURL(base, variable: "OTEL_EXPORTER_OTLP_ENDPOINT", appending: "v1/traces")
        } else {
            config = try parseURL(
                "http://localhost:4318", variable: "OTEL_EXPORTER_OTLP_ENDPOINT", appending: "v1/traces")
        }
        if let (name, p) = value("PROTOCOL") {
            guard let w = WireProtocol(rawValue: p) else {
                throw Problem(variable: name, reason: "\(p) is not supported (http/protobuf or http/json)")
            }
            config.wire = w
        }
        if let (name, h) = value("HEADERS") {
            config.headers = try pairs(h, variable: name).map { (name: $0.0, value: $0.1) }
            for (n, v) in config.headers
            where n.contains(where: { $0 == ":" || $0 == " " || $0 < " " })
                || v.contains(where: { $0 < " " })
            {
                throw Problem(variable: name, reason: "header \(n) is not a valid HTTP header")
            }
        }
        if let (name, t) = value("TIMEOUT") {
            guard let ms = Int(t), ms >= 0 else {
                throw Problem(variable: name, reason: "\(t) is not a number of milliseconds")
            }
            config.timeout = ms == 0 ? 10 : Double(ms) / 1000
        }
        if let r = env["OTEL_RESOURCE_ATTRIBUTES"], !r.isEmpty {
            for (k, v) in try pairs(r, variable: "OTEL_RESOURCE_ATTRIBUTES") {
                if k == "service.name" { config.serviceName = v } else { config.resourceAttributes.append((k, v)) }
            }
        }
        if let s = env["OTEL_SERVICE_NAME"], !s.isEmpty { config.serviceName = s }
        return config
    }

    /// `http://host[:port][/path]`; `appending` is added to the base path (`v1/traces`).
    static func parseURL(_ text: String, variable: String, appending: String?) throws(Problem) -> OTLPConfig {
        func bad(_ reason: String) -> Problem { Problem(variable: variable, reason: reason) }
        if text.hasPrefix("https://") {
            var problem = bad("https is not supported (taskview sends OTLP over plain http; use a local collector)")
            problem.unsupported = true
            throw problem
        }
        guard text.hasPrefix("http://") else { throw bad("\(text) is not an http:// URL") }
        let rest = text.dropFirst(7)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var path = String(rest.dropFirst(authority.count))
        guard !authority.isEmpty, !authority.contains("@"), authority.allSatisfy({ $0 > " " && $0 != "%" }) else {
            throw bad("\(text) has no valid host")
        }
        var host = String(authority)
        var port = 80
        if authority.hasPrefix("[") { // [::1]:4318
            guard let close = authority.firstIndex(of: "]") else { throw bad("\(text) has no valid host") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65535).contains(p) else {
                    throw bad("\(text) has no valid port")
                }
                port = p
            }
        } else if let colon = authority.lastIndex(of: ":") {
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else {
                throw bad("\(text) has no valid port")
            }
            host = String(authority[..<colon])
            port = p
        }
        guard !host.isEmpty, path.allSatisfy({ $0 > " " }) else { throw bad("\(text) is not a valid URL") }
        if let appending {
            if !path.hasSuffix("/") { path += "/" }
            path += appending
        } else if path.isEmpty {
            path = "/"
        }
        let url = "http://" + authority + path
        return OTLPConfig(url: url, host: host, port: port, path: path)
    }

    /// `k=v,k2=v2` with percent-encoded keys and values (W3C baggage's form, as the OTLP
    /// variables use it).
    static func pairs(_ text: String, variable: String) throws(Problem) -> [(String, String)] {
        var out: [(String, String)] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: true) {
            guard let eq = item.firstIndex(of: "=") else {
                throw Problem(variable: variable, reason: "\(item) is not key=value")
            }
            guard let k = percentDecoded(item[..<eq]), let v = percentDecoded(item[item.index(after: eq)...]) else {
                throw Problem(variable: variable, reason: "\(item) has a bad %-escape")
            }
            let key = k.trimmingSpaces
            guard !key.isEmpty else { throw Problem(variable: variable, reason: "\(item) has no key") }
            out.append((key, v.trimmingSpaces))
        }
        return out
    }

    static func percentDecoded(_ s: Substring) -> String? {
        var bytes: [UInt8] = []
        var u = Array(s.utf8)[...]
        while let b = u.first {
            u = u.dropFirst()
            if b != 37 {
                bytes.append(b)
                continue
            }
            guard u.count >= 2, let h = hexDigit(u[u.startIndex]), let l = hexDigit(u[u.startIndex + 1]) else {
                return nil
            }
            bytes.append(h << 4 | l)
            u = u.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 65...70: c - 55
        case 97...102: c - 87
        default: nil
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
