import Foundation

/// The threads of this process and what each is doing, from `/proc/self/task` (Linux), so a
/// test can see threads start, wait and end without hooks in the code under test.
enum ProcessThreads {
    /// Whether the thread list can be read here.
    static var isAvailable: Bool { FileManager.default.fileExists(atPath: "/proc/self/task") }

    /// Thread id to scheduler state (`R` running, `S` sleeping in a wait, `D` disk, ...).
    static func states() -> [Int: Character] {
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var states: [Int: Character] = [:]
        for id in ids.compactMap(Int.init) {
            // "tid (name) S ...": the state follows the last ")", as the name may hold one.
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }  // the thread ended while we were reading
            let rest = stat[stat.index(after: close)...].drop { $0 == " " }
            if let state = rest.first { states[id] = state }
        }
        return states
    }
}
