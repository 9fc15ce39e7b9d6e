import Foundation
import LastsetCore

#if canImport(Glibc)
    import Glibc
#endif

/// The page definitions this host took from its fleet (`TakenPageDefinition`): one file per page,
/// `<data>/page-definitions/<page>.json`, written durably (a temporary file fsynced and renamed, the directory
/// fsynced), never through a link. Read at every config load: a taken definition is used in place of the config's.
public struct PageDefinitionStore: Sendable {
    /// The folder's name in the data directory.
    public static let folderName = "page-definitions"
    /// The data directory.
    public let dataDirectory: URL

    /// The store of a data directory.
    public init(dataDirectory: URL) { self.dataDirectory = dataDirectory }

    /// The folder (nil when there is none and `create` is false: a data directory not made yet has none either).
    private func folder(create: Bool) throws(StorageError) -> DirectoryHandle? {
        if !create && !FileManager.default.fileExists(atPath: dataDirectory.path) { return nil }
        return try DirectoryHandle.open(dataDirectory.path).subdirectory(Self.folderName, create: create)
    }

    /// Every taken definition, by page id order; a file that does not decode is an error naming it (a config load
    /// then fails, as for a config problem: the daemon never runs a page other than the one it was told to).
    public func all() throws(StorageError) -> [TakenPageDefinition] {
        guard let folder = try folder(create: false) else { return [] }
        var out: [TakenPageDefinition] = []
        for name in folder.names().sorted() where name.hasSuffix(".json") {
            guard let (data, _) = try folder.readFile(name) else { continue }
            guard let taken = try? APICoding.decoder().decode(TakenPageDefinition.self, from: data),
                taken.format == TakenPageDefinition.formatName, name == taken.definition.definition.id + ".json"
            else {
                throw StorageError(
                    operation: "read the taken page definition", path: folder.path + "/" + name, errno: EBADMSG,
                    detail: "not a \(TakenPageDefinition.formatName) file of its page")
            }
            out.append(taken)
        }
        return out
    }

    /// The taken definition of a page, if any.
    public func taken(pageId: String) throws(StorageError) -> TakenPageDefinition? {
        try all().first { $0.definition.definition.id == pageId }
    }

    /// Keeps `taken` (replacing a definition taken before for its page), durably.
    public func save(_ taken: TakenPageDefinition) throws(StorageError) {
        guard let folder = try folder(create: true) else { return }
        var data: Data
        do {
            data = try APICoding.encoder(pretty: true).encode(taken)
        } catch {
            // Never an empty file in its place: the page would read as unreadable at the next start.
            throw StorageError(
                operation: "encode the taken page definition", path: folder.path + "/" + taken.definition.definition.id + ".json",
                errno: EINVAL, detail: "\(error)")
        }
        data.append(0x0A)
        try folder.writeFile(taken.definition.definition.id + ".json", data)
    }

    /// Drops the taken definition of a page (the config's is used again); false when there was none.
    public func release(pageId: String) throws(StorageError) -> Bool {
        guard let folder = try folder(create: false), folder.remove(pageId + ".json") else { return false }
        try folder.sync()
        return true
    }
}
