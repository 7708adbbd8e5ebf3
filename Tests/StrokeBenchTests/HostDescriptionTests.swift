import Testing

@testable import stroke_bench

/// The host a report names: the first processor's fields of `/proc/cpuinfo`, and the text line.
@Suite("stroke-bench's host description")
struct HostDescriptionTests {
    static let twoProcessors = """
        processor\t: 0
        vendor_id\t: AuthenticAMD
        cpu family\t: 26
        model\t\t: 2
        model name\t: AMD EPYC
        flags\t\t: fpu vme avx512f

        processor\t: 1
        vendor_id\t: AuthenticAMD
        cpu family\t: 25
        model\t\t: 17
        model name\t: Another CPU

        """

    @Test("the first processor's model name, family and model; the rest as given")
    func firstProcessor() {
        let host = HostDescription(cpuinfo: Self.twoProcessors, cores: 2, kernel: "6.1.0", libzmq: "4.3.4")
        #expect(host.cpu == "AMD EPYC")
        #expect(host.cpuFamily == 26)
        #expect(host.cpuModel == 2)
        #expect(host.line == "AMD EPYC (family 26, model 2), 2 cores, Linux 6.1.0, libzmq 4.3.4")
    }

    @Test("without /proc/cpuinfo's fields (another architecture, or no file): unknown, no numbers")
    func nothingKnown() {
        let host = HostDescription(cpuinfo: "", cores: 4, kernel: "6.1.0", libzmq: "4.3.5")
        #expect(host.cpu == "unknown")
        #expect(host.cpuFamily == nil && host.cpuModel == nil)
        #expect(host.line == "unknown, 4 cores, Linux 6.1.0, libzmq 4.3.5")
    }

    @Test("this machine's: its cores and libzmq at least")
    func current() {
        let host = HostDescription.current()
        #expect(host.cores >= 1)
        #expect(host.libzmq.split(separator: ".").count == 3)
        #expect(!host.kernel.isEmpty)
    }
}
