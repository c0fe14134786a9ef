import Foundation

/// The processors this process may use (cgroup quotas and affinity included), read once:
/// Foundation reads several files under /sys and /proc to answer, which a reader that is asked
/// for its first frame should not pay for again.
let availableProcessors = ProcessInfo.processInfo.activeProcessorCount
