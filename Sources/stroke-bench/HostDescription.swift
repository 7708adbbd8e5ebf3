import Foundation
import ZeroMQ

/// The machine a run measured: its CPU as `/proc/cpuinfo` names it, its cores, kernel and libzmq.
///
/// Hosts of the same size differ: session 75's (an AMD EPYC of family 26) ran the recognizer a third faster and the
/// raw libzmq pair half as fast again as session 74's, which moved the worker ÷ raw ratios; a report that names its
/// host lets such a change be told from one of the code.
struct HostDescription: Codable, Equatable {
    /// The CPU's model name (`model name` in `/proc/cpuinfo`); "unknown" where the file is missing.
    var cpu: String
    /// The CPU family and model numbers, where `/proc/cpuinfo` gives them (x86).
    var cpuFamily: Int?
    var cpuModel: Int?
    /// The cores this process may use.
    var cores: Int
    /// The kernel's release (`uname -r`).
    var kernel: String
    /// The libzmq version the worker and the raw pair link.
    var libzmq: String

    /// The host this process runs on.
    static func current() -> HostDescription {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        var names = utsname()
        _ = uname(&names)
        let release = withUnsafeBytes(of: &names.release) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        let version = ZMQContext.version
        return HostDescription(
            cpuinfo: cpuinfo, cores: ProcessInfo.processInfo.activeProcessorCount, kernel: release,
            libzmq: "\(version.major).\(version.minor).\(version.patch)")
    }

    /// The description of a host whose `/proc/cpuinfo` reads `cpuinfo`: the first processor's fields.
    init(cpuinfo: String, cores: Int, kernel: String, libzmq: String) {
        var fields: [String: String] = [:]
        for line in cpuinfo.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty && !fields.isEmpty { break }  // the first processor's block ends
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if fields[key] == nil { fields[key] = value }
        }
        cpu = fields["model name"] ?? "unknown"
        cpuFamily = fields["cpu family"].flatMap { Int($0) }
        cpuModel = fields["model"].flatMap { Int($0) }
        self.cores = cores
        self.kernel = kernel
        self.libzmq = libzmq
    }

    /// One line for the text report: `AMD EPYC (family 26, model 2), 2 cores, Linux 6.1.0, libzmq 4.3.4`.
    var line: String {
        let numbers = cpuFamily.map { family in
            " (family \(family)" + (cpuModel.map { ", model \($0)" } ?? "") + ")"
        }
        return "\(cpu)\(numbers ?? ""), \(cores) cores, Linux \(kernel), libzmq \(libzmq)"
    }
}
