/// The state of every input of a load, summed up for a progress display.
///
/// Feed it each ``LoadEvent`` with ``record(_:)``; ``summary`` is the one-line text the CLI
/// draws (`2/3 images loaded, 1.4 MB of 3.1 MB`). A value type with no isolation: keep it where
/// you draw (the CLI keeps it on the main actor).
public struct LoadProgress: Sendable, Hashable {
    /// The number of inputs.
    public let count: Int
    /// The latest state of each input that has reported one, by index.
    public private(set) var states: [Int: LoadState] = [:]
    private var received: [Int: Int] = [:]

    /// Creates an empty progress for `count` inputs.
    public init(count: Int) {
        self.count = count
    }

    /// Takes in one state change.
    public mutating func record(_ event: LoadEvent) {
        if let current = states[event.index], current.isFinished { return }
        states[event.index] = event.state
        if case .loading(let soFar, _) = event.state { received[event.index] = soFar }
    }

    /// Inputs loaded or failed.
    public var finishedCount: Int { states.values.filter(\.isFinished).count }

    /// Inputs that failed.
    public var failedCount: Int {
        states.values.filter {
            if case .failed = $0 { return true }
            return false
        }.count
    }

    /// Bytes received so far, over every input (a finished input counts its last reported value).
    public var bytesSoFar: Int { received.values.reduce(0, +) }

    /// Bytes expected over the inputs still loading plus those received by finished ones, or
    /// `nil` when an input still loading has no known total.
    public var totalBytes: Int? {
        var total = 0
        for (index, state) in states {
            switch state {
            case .loading(_, let expected?): total += expected
            case .loading(_, nil): return nil
            case .loaded, .failed: total += received[index] ?? 0
            }
        }
        return total
    }

    /// One line, e.g. `merge: 2/3 images loaded (1 failed), 1.4 MB received`.
    public var summary: String {
        var line = "\(finishedCount)/\(count) images loaded"
        if failedCount > 0 { line += " (\(failedCount) failed)" }
        let received = bytesSoFar
        if received > 0 {
            line += ", " + Self.formatBytes(received)
            if let total = totalBytes, total > received { line += " of " + Self.formatBytes(total) }
            line += " received"
        }
        return line
    }

    /// `1234` → `1.2 kB`, decimal units with one decimal (bytes below 1000 as `N B`).
    public static func formatBytes(_ count: Int) -> String {
        if count < 1000 { return "\(count) B" }
        let units = ["kB", "MB", "GB", "TB"]
        var value = Double(count) / 1000
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
