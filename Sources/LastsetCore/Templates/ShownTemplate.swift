/// `GET /v1/pages/{page}/templates/{version}`: the template (its Codable form, unchanged) with one more key,
/// `applicableHere`, saying whether it applies to this host's page (`TemplateApplicability`).
public struct ShownTemplate: Codable, Sendable, Hashable {
    public var template: Template
    /// Whether the template applies to this host's page; nil from a daemon that does not say.
    public var applicableHere: TemplateApplicability?

    /// A template as shown.
    public init(template: Template, applicableHere: TemplateApplicability?) {
        self.template = template
        self.applicableHere = applicableHere
    }

    private enum CodingKeys: String, CodingKey { case applicableHere }

    /// The template's own keys, and `applicableHere` beside them.
    public init(from decoder: any Decoder) throws {
        template = try Template(from: decoder)
        applicableHere = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(
            TemplateApplicability.self, forKey: .applicableHere)
    }

    /// The template's own keys, and `applicableHere` beside them (one object).
    public func encode(to encoder: any Encoder) throws {
        try template.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(applicableHere, forKey: .applicableHere)
    }
}
