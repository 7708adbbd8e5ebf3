import Foundation

/// How busy the whole machine was over an interval, from the first line of `/proc/stat`: the share of all cores'
/// time not spent idle. It tells a run bounded by the cores (near 1) from one bounded by threads waiting on each
/// other (well below 1).
struct MachineLoad {
    /// Jiffies spent busy and in total, over all cores, since boot.
    private var busy: UInt64
    private var total: UInt64

    /// The counters now; zeros where `/proc/stat` cannot be read.
    static func now() -> MachineLoad {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return MachineLoad(busy: 0, total: 0) }
        // user nice system idle iowait irq softirq steal (guest time is already inside user).
        let fields = line.split(separator: " ").dropFirst().prefix(8).compactMap { UInt64($0) }
        guard fields.count == 8 else { return MachineLoad(busy: 0, total: 0) }
        let total = fields.reduce(0, +)
        return MachineLoad(busy: total - fields[3] - fields[4], total: total)
    }

    /// The busy share of all cores between `self` and `later`, in `0...1` (NaN when nothing was counted).
    func busyFraction(until later: MachineLoad) -> Double {
        guard later.total > total else { return .nan }
        return Double(later.busy - busy) / Double(later.total - total)
    }
}
