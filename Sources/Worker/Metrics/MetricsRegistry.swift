import Foundation
import Synchronization

/// Counters, gauges and histograms rendered in the Prometheus text format (version 0.0.4).
///
/// Thread safety: one lock over all series; updates are a dictionary write, so contention stays low next to the
/// network work they count.
///
/// Bounded series: a family declares its label names and, for each, the closed set of values it takes. A value from
/// outside the set is counted as `other`, and a label the family does not declare is dropped, so nothing a record or
/// a server says can create a time series: a family has at most the product of its sets' sizes (plus `other`).
public final class MetricsRegistry: Sendable {
    public enum Kind: String, Sendable { case counter, gauge, histogram }

    private struct Family {
        let help: String
        let kind: Kind
        let bounds: [Double]
    }

    /// One series: its family and its rendered label set.
    private struct Series: Hashable {
        let family: String
        let labels: String
    }

    private struct Histogram {
        var buckets: [Double]
        var sum = 0.0
        var count = 0.0
    }

    /// The values, one flat table for all families: each series has a slot, found by its key once and kept by a
    /// ``Counter`` handle, so a hot counter's update is an array write under the lock, never a hashing of its labels.
    private struct Values {
        var families: [String: Family] = [:]
        /// The slot of each series ever named.
        var series: [Series: Int] = [:]
        var slots: [Double] = []
        /// Whether a slot's series is rendered: a handle's series from its first update on, a replaced one until it is
        /// left out of a replacement.
        var shown: [Bool] = []
        var histograms: [Series: Histogram] = [:]

        mutating func slot(of key: Series) -> Int {
            if let slot = series[key] { return slot }
            series[key] = slots.count
            slots.append(0)
            shown.append(false)
            return slots.count - 1
        }

        /// Changes a declared family's series, which is rendered from then on; a series of a family never declared
        /// is not kept.
        mutating func update(_ key: Series, _ change: (inout Double) -> Void) {
            guard families[key.family] != nil else { return }
            let slot = slot(of: key)
            change(&slots[slot])
            shown[slot] = true
        }

        /// The series and values rendered, by family.
        func shownSeries() -> [String: [(labels: String, value: Double)]] {
            var byFamily: [String: [(labels: String, value: Double)]] = [:]
            for (key, slot) in series where shown[slot] { byFamily[key.family, default: []].append((key.labels, slots[slot])) }
            return byFamily
        }
    }

    /// A counter series resolved once, for code that counts the same series over and over (every job, every file):
    /// its updates skip bounding and looking up the labels.
    public struct Counter: Sendable {
        fileprivate let registry: MetricsRegistry
        fileprivate let slot: Int?

        public func increment(by value: Double = 1) {
            guard let slot else { return }
            registry.values.withLock { values in
                values.slots[slot] += value
                values.shown[slot] = true
            }
        }
    }

    /// What a label value outside a family's closed set is counted as.
    public static let otherValue = "other"

    /// Declared label names and the values each takes, by family; read on every update.
    private let schemas = Mutex<[String: [String: LabelDomain]]>([:])

    private let values = Mutex(Values())
    private let order = Mutex<[String]>([])
    /// A series' rendered, bounded label set by family and the labels a caller gave.
    private let seriesKeys = Mutex<[SeriesKey: String]>([:])

    private struct SeriesKey: Hashable {
        let family: String
        let labels: [String: String]
    }

    public init() {}

    /// Declares a metric family with its labels, each with the values it takes; declaring it again is harmless (the
    /// first declaration stands).
    public func declare(_ name: String, _ kind: Kind, help: String, buckets: [Double] = [],
                        labels: [String: LabelDomain] = [:]) {
        schemas.withLock { schemas in
            if schemas[name] == nil { schemas[name] = labels }
        }
        let added = values.withLock { values in
            guard values.families[name] == nil else { return false }
            values.families[name] = Family(help: help, kind: kind, bounds: buckets.sorted())
            return true
        }
        if added { order.withLock { $0.append(name) } }
    }

    public func increment(_ name: String, by value: Double = 1, labels: [String: String] = [:]) {
        let series = Series(family: name, labels: seriesKey(name, labels))
        values.withLock { $0.update(series) { $0 += value } }
    }

    /// The handle of a family's series (`labels` bounded as `increment` bounds them); the series appears once first
    /// incremented. A handle of an undeclared family counts nothing, as `increment` does.
    public func counter(_ name: String, labels: [String: String] = [:]) -> Counter {
        let series = Series(family: name, labels: seriesKey(name, labels))
        let slot = values.withLock { values in values.families[name] == nil ? nil : values.slot(of: series) }
        return Counter(registry: self, slot: slot)
    }

    public func set(_ name: String, _ value: Double, labels: [String: String] = [:]) {
        let series = Series(family: name, labels: seriesKey(name, labels))
        values.withLock { $0.update(series) { $0 = value } }
    }

    /// Makes `series` the family's only series: for gauges about things that come and go (the partitions a worker
    /// owns), so one given up leaves no stale value behind.
    public func replace(_ name: String, with series: [(labels: [String: String], value: Double)]) {
        let keyed = series.map { (Series(family: name, labels: seriesKey(name, $0.labels)), $0.value) }
        values.withLock { values in
            guard values.families[name] != nil else { return }
            for (key, slot) in values.series where key.family == name {
                values.slots[slot] = 0
                values.shown[slot] = false
            }
            for (key, value) in keyed {
                let slot = values.slot(of: key)
                values.slots[slot] = value
                values.shown[slot] = true
            }
        }
    }

    public func observe(_ name: String, _ value: Double, labels: [String: String] = [:]) {
        let series = Series(family: name, labels: seriesKey(name, labels))
        values.withLock { values in
            guard let bounds = values.families[name]?.bounds else { return }
            Self.record(value, bounds: bounds,
                        into: &values.histograms[series, default: Histogram(buckets: [Double](repeating: 0, count: bounds.count))])
        }
    }

    private static func record(_ value: Double, bounds: [Double], into entry: inout Histogram) {
        for (index, bound) in bounds.enumerated() where value <= bound { entry.buckets[index] += 1 }
        entry.sum += value
        entry.count += 1
    }

    /// The current value of a counter or gauge series (0 when never set).
    public func value(_ name: String, labels: [String: String] = [:]) -> Double {
        let series = Series(family: name, labels: seriesKey(name, labels))
        return values.withLock { values in values.series[series].map { values.slots[$0] } ?? 0 }
    }

    /// The labels a family's series is kept under: undeclared names dropped, values outside their set `other`.
    func bounded(_ labels: [String: String], of name: String) -> [String: String] {
        guard !labels.isEmpty else { return labels }
        let schema = schemas.withLock { $0[name] } ?? [:]
        var kept: [String: String] = [:]
        for (label, value) in labels {
            guard let allowed = schema[label] else { continue }
            kept[label] = allowed.admits(value) ? value : Self.otherValue
        }
        return kept
    }

    /// Everything, in the Prometheus text exposition format.
    public func render() -> String {
        let names = order.withLock { $0 }
        let labelled = schemas.withLock { schemas in Set(schemas.filter { !$0.value.isEmpty }.keys) }
        let (snapshot, series) = values.withLock { ($0, $0.shownSeries()) }
        let histograms = Dictionary(grouping: snapshot.histograms, by: \.key.family)
        var text = ""
        for name in names {
            guard let family = snapshot.families[name] else { continue }
            text += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.kind.rawValue)\n"
            if family.kind == .histogram {
                let entries = (histograms[name] ?? []).map { (labels: $0.key.labels, entry: $0.value) }
                for (labels, entry) in entries.sorted(by: { $0.labels < $1.labels }) {
                    for (index, bound) in family.bounds.enumerated() {
                        text += "\(name)_bucket\(Self.merge(labels, "le=\"\(Self.number(bound))\"")) \(Self.number(entry.buckets[index]))\n"
                    }
                    text += "\(name)_bucket\(Self.merge(labels, "le=\"+Inf\"")) \(Self.number(entry.count))\n"
                    text += "\(name)_sum\(labels) \(Self.number(entry.sum))\n\(name)_count\(labels) \(Self.number(entry.count))\n"
                }
            } else {
                let values = series[name] ?? []
                // A family without labels has its one series from the start; one with labels has a series only for
                // what happened (a bare 0 there would be a series no query means).
                let shown = values.isEmpty && !labelled.contains(name) ? [("", 0)] : values
                for (labels, value) in shown.sorted(by: { $0.labels < $1.labels }) {
                    text += "\(name)\(labels) \(Self.number(value))\n"
                }
            }
        }
        return text
    }

    /// The series a family's labels name: bounded to the family's closed sets, rendered `{a="1",b="2"}`. Memoised by
    /// the labels as given: hot paths count with a handful of label sets over and over, and looking one up costs a
    /// fraction of bounding and rendering it. A caller that labels with something unbounded only misses the memo
    /// once it is full; its values still come out as `other`.
    func seriesKey(_ name: String, _ labels: [String: String]) -> String {
        guard !labels.isEmpty else { return "" }
        let key = SeriesKey(family: name, labels: labels)
        if let known = seriesKeys.withLock({ $0[key] }) { return known }
        let text = Self.labelText(bounded(labels, of: name))
        seriesKeys.withLock { cache in
            if cache.count < 4096 { cache[key] = text }
        }
        return text
    }

    static func labelText(_ labels: [String: String]) -> String {
        guard !labels.isEmpty else { return "" }
        let pairs = labels.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\"\(escape($0.value))\"" }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    private static func merge(_ labels: String, _ extra: String) -> String {
        labels.isEmpty ? "{\(extra)}" : String(labels.dropLast()) + ",\(extra)}"
    }

    private static func escape(_ value: String) -> String {
        // Label values almost never need escaping; this runs on every counter update.
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == 0x0A }) else { return value }
        return value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
