/// `GET /v1/metrics`: the devices' health and link counters in the Prometheus text exposition format 0.0.4.
public enum MetricsText {
    /// The Content-Type of the body.
    public static let contentType = "text/plain; version=0.0.4"

    /// One metric family: name, help text, type, and the value it takes from a device's status (nil: no sample).
    private struct Family: Sendable {
        var name: String
        var help: String
        var type: String
        var value: @Sendable (DeviceStatus) -> Int?
    }

    private static let families: [Family] = [
        Family(
            name: "lastset_device_reachable", help: "1 when the last request to the device succeeded, 0 when it failed.",
            type: "gauge"
        ) {
            $0.reachable.map { $0 ? 1 : 0 }
        },
        Family(
            name: "lastset_modbus_requests_total", help: "Modbus requests sent to the device, each attempt counted.",
            type: "counter"
        ) {
            $0.counters?.requests ?? 0
        },
        Family(name: "lastset_modbus_retries_total", help: "Attempts repeated after a transient fault.", type: "counter") {
            $0.counters?.retries ?? 0
        },
        Family(name: "lastset_modbus_crc_errors_total", help: "Replies that failed their CRC check (RTU).", type: "counter") {
            $0.counters?.crcErrors ?? 0
        },
        Family(
            name: "lastset_modbus_bad_replies_total",
            help: "Replies that did not belong to the request (transaction id, unit or function).", type: "counter"
        ) { $0.counters?.badReplies ?? 0 },
        Family(
            name: "lastset_modbus_timeouts_total", help: "Requests without a reply within the response timeout.", type: "counter"
        ) {
            $0.counters?.timeouts ?? 0
        },
        Family(name: "lastset_modbus_exceptions_total", help: "Replies that were a Modbus exception.", type: "counter") {
            $0.counters?.exceptions ?? 0
        },
    ]

    /// The body: each family's HELP and TYPE lines, then one sample per device labelled `device="<id>"`.
    public static func render(_ devices: [DeviceStatus]) -> String {
        var out = ""
        for family in families {
            out += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.type)\n"
            for d in devices {
                guard let v = family.value(d) else { continue }
                out += "\(family.name){device=\"\(escape(d.id))\"} \(v)\n"
            }
        }
        return out
    }

    /// A label value with `\`, `"` and newlines escaped, as the format requires.
    static func escape(_ value: String) -> String {
        var out = ""
        for c in value {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }
}
