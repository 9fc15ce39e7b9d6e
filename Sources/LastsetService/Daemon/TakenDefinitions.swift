import Foundation
import LastsetCore
import LastsetEngine

/// The config the daemon runs on: the config file, checked and compiled, with the page definitions this host took from
/// its fleet (`lastset fleet page PAGE --take`, kept in `<data>/page-definitions/`) in place of the config's own.
enum TakenDefinitions {
    /// Loads `path` and applies the taken definitions of `dataDirectory`, with one line per taken definition in force,
    /// for the log; a taken file that cannot be read is a problem of the load, like one of the config (the daemon never
    /// runs a page other than the one it was told to).
    static func load(path: String, dataDirectory: URL) throws(ConfigErrors) -> (config: CompiledConfig, notes: [String]) {
        let config = try ConfigLoader.load(path: path)
        let taken: [TakenPageDefinition]
        do {
            taken = try PageDefinitionStore(dataDirectory: dataDirectory).all()
        } catch {
            throw ConfigErrors(problems: [
                ConfigProblem(
                    file: dataDirectory.appendingPathComponent(PageDefinitionStore.folderName).path, path: "$", value: "",
                    message: "\(error)")
            ])
        }
        guard !taken.isEmpty else { return (config, []) }
        let notes = taken.filter { config.source.page($0.definition.definition.id) != nil }.map {
            "page \($0.definition.definition.id): the fleet's definition (\($0.definition.pageHash), from \($0.fromVersion), taken by \($0.takenBy)) is in force, not the config's; lastset fleet page \($0.definition.definition.id) --release goes back to the config's"
        }
        do throws(ConfigErrors) {
            return (try CompiledConfig(TakenPageDefinition.apply(taken, to: config.source)), notes)
        } catch {
            throw ConfigErrors(
                problems: error.problems.map {
                    var p = $0
                    p.file = path
                    return p
                })
        }
    }
}
