/// The template version an operator confirmed after a dry run, carried by the write that follows.
///
/// A dry run shows "heating v5"; the write must send v5 or nothing. When the request (latest, or a named
/// version) resolves to another version by the time it is written — a capture, import, promote or fleet sync
/// in between — the write is refused (409 `version_changed`), never silently switched.
public enum VersionPin {
    /// Why a write pinned to `confirmed` may not go ahead when its request resolves to `resolved` (nil: no
    /// template now); nil when nothing was pinned or the versions are the same.
    public static func refusal(pageId: String, confirmed: String?, resolved: String?) -> String? {
        guard let confirmed, confirmed != resolved else { return nil }
        let now = resolved.map { "it now resolves to v\($0)" } ?? "the page has no template now"
        return "\(pageId): v\(confirmed) was confirmed, but \(now); run the dry run again and confirm what will be written"
    }
}
