import Foundation
import Testing

/// `stroke-tool tilt`: the checkmark detector on a tilted subject's strokes, as drawn and following the tilt.
@Suite("stroke-tool tilt")
struct TiltCommandTests {
    @Test("a row as drawn and a row followed per tilt; followed, a tilted subject's checks fire as upright ones")
    func rows() throws {
        let result = try StrokeToolTests.run([
            "tilt", "--dataset", StrokeToolTests.fixtures, "--tilts", "-40, 0", "--json",
        ])
        #expect(result.status == 0, "\(result.error)")
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as! [String: Any]
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.map { $0["tilt"] as? Double } == [-40, -40, 0, 0])
        #expect(rows.map { $0["tracking"] as? Bool } == [false, true, false, true])
        let checks = rows.map { $0["checksFired"] as? Double ?? -1 }
        #expect(checks[0] < checks[2] && checks[1] == checks[2] && checks[3] == checks[2])
        let text = try StrokeToolTests.run(["tilt", "--dataset", StrokeToolTests.fixtures, "--tilts", "20"])
        #expect(text.status == 0 && text.output.contains("followed") && text.output.contains("as drawn"))
    }

    @Test("a tilt that is no angle, or no data set, is refused with status 2")
    func refused() throws {
        let bad = try StrokeToolTests.run(["tilt", "--dataset", StrokeToolTests.fixtures, "--tilts", "10,up"])
        #expect(bad.status == 2 && bad.error.contains("\"up\""))
        #expect(try StrokeToolTests.run(["tilt", "--dataset", StrokeToolTests.fixtures, "--tilts", "200"]).status == 2)
        #expect(try StrokeToolTests.run(["tilt"]).status == 2)
    }
}
