import Foundation

/// Entry point of `lastset-bench`.
@main
enum BenchMain {
    static func main() async {
        let options: BenchOptions
        do {
            options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("lastset-bench: \(error)\n\(BenchOptions.usage)\n".utf8))
            exit(64)
        }
        do {
            let bench = try Bench(options: options)
            let ok = await bench.run()
            exit(ok ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("lastset-bench: \(error)\n".utf8))
            exit(1)
        }
    }
}
