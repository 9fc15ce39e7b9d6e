import Foundation
import TestSupport
import XCTest

/// A PDF's register table as `pdftotext -tsv` (poppler-utils) reads it back: the words of each line, each put in the
/// column whose title starts at or left of it (the titles' first words give the columns).
enum PDFText {
    /// One word and where pdftotext found it.
    struct Word {
        var page: Int
        var left: Double
        var top: Double
        var text: String
    }

    /// Every word of `pdf`, in pdftotext's order.
    static func words(_ pdf: URL) throws -> [Word] {
        let run = try ProgramRun.run(URL(fileURLWithPath: "/usr/bin/pdftotext"), ["-tsv", pdf.path, "-"])
        guard run.status == 0 else { throw TestSupportError("pdftotext -tsv failed (\(run.status)): \(run.stderr)") }
        return run.stdout.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard f.count == 12, f[0] == "5", let page = Int(f[1]), let left = Double(f[6]), let top = Double(f[7]) else {
                return nil
            }
            return Word(page: page, left: left, top: top, text: String(f[11]))
        }
    }

    /// The text pdftotext reads, every word once, joined by spaces (for phrases).
    static func text(_ pdf: URL) throws -> String { try words(pdf).map(\.text).joined(separator: " ") }

    /// The rows of the register table whose first cell is one of `registers`, each as its cells' texts, read back
    /// on every page (the header row repeats on each).
    static func registerRows(_ pdf: URL, titles: [String], registers: Set<String>) throws -> [[String]] {
        let all = try words(pdf)
        let lines = Dictionary(grouping: all) { "\($0.page)/\(Int(($0.top * 2).rounded()))" }.values.map {
            $0.sorted { $0.left < $1.left }
        }
        let firstWords = titles.map { String($0.split(separator: " ")[0]) }
        var rows: [(page: Int, top: Double, cells: [String])] = []
        for page in Set(all.map(\.page)) {
            let onPage = lines.filter { $0.first?.page == page }
            guard
                let header = onPage.first(where: {
                    $0.map(\.text).starts(with: [firstWords[0]]) && $0.contains { $0.text == firstWords.last }
                })
            else { continue }
            var starts: [Double] = []
            for title in firstWords {
                guard let word = header.first(where: { $0.text == title && $0.left >= (starts.last ?? -1) }) else { break }
                starts.append(word.left)
            }
            guard starts.count == titles.count else { continue }
            for line in onPage where registers.contains(line[0].text) {
                var cells = [String](repeating: "", count: titles.count)
                for word in line {
                    let column = starts.lastIndex { $0 <= word.left + 0.5 } ?? 0
                    cells[column] += (cells[column].isEmpty ? "" : " ") + word.text
                }
                rows.append((page, line[0].top, cells))
            }
        }
        return rows.sorted { ($0.page, $0.top) < ($1.page, $1.top) }.map(\.cells)
    }
}
