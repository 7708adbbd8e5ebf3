import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let dataset = arguments.firstIndex(of: "--dataset").map { arguments[$0 + 1] } ?? "../shared/datasets/dollar1"
let rows = try RecognizerBenchmark.run(sizes: [16, 48, 1000, 10000], dataset: dataset, minimumSeconds: 1)
for row in rows { print("recognizer: \(row.templates) templates: \(String(format: "%.2f", row.microseconds)) µs") }
