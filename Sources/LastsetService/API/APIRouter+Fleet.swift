import Foundation
import LastsetCore
import LastsetFleet
import LastsetHTTP

/// The fleet's routes beyond `POST /v1/sync`: the doctor and the repairs (docs/API.md, docs/FLEET.md).
extension APIRouter {
    /// This host's fleet; 409 `no_fleet` on a host in no fleet.
    func requireFleet() throws -> Fleet {
        guard let fleet else {
            throw APIError.conflict(.noFleet, "this host is in no fleet: the config has no \"fleet\" section")
        }
        return fleet
    }

    /// `GET /v1/fleet/doctor`: the repository, whether the hub answers and what it holds checked by the rules of a
    /// fetch (nothing merged), each problem with its commit, file and rule; the verdict and the safe repairs.
    func fleetDoctor() async throws -> HTTPResponse {
        .api(200, await try requireFleet().diagnose())
    }

    /// `POST /v1/fleet/repair/quarantine?reason=…[&head=…]` and `POST /v1/fleet/repair/reclone?reason=…`: a quarantine
    /// of the hub's refused branch or a re-clone of this host's repository, audited; 200 with the report whatever it
    /// did (`result`), 400 without a reason.
    func fleetRepair(_ call: APICall, way: FleetRepairWay) async throws -> HTTPResponse {
        let fleet = try requireFleet()
        let reason = try requiredReason(call, for: "a repair")
        let head = call.query("head")
        if let head, way != .quarantine || !(7...40).contains(head.count) || !head.allSatisfy(\.isHexDigit) {
            throw APIError.badRequest(
                .badParameter, "head \"\(head.prefix(80))\" is for a quarantine: the hub's commit id (7 to 40 hex digits)")
        }
        switch way {
        case .quarantine: return .api(200, await fleet.quarantine(reason: reason, expectedHead: head, who: call.who))
        case .reclone: return .api(200, await fleet.reclone(reason: reason, who: call.who))
        }
    }

    /// `?reason=` a fleet change needs (it is audited): 400 `bad_parameter` without one or for one out of its form.
    func requiredReason(_ call: APICall, for what: String) throws -> String {
        guard let reason = try historyReason(call) else {
            throw APIError.badRequest(.badParameter, "\(what) needs ?reason= (1...500 printable characters): it is audited")
        }
        return reason
    }
}
