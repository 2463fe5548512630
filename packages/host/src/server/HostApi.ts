/**
 * The host's HttpApi: the partner API plus the operator's admin API, so one server, one OpenAPI
 * document. The typed partner client stays on PartnerApi alone.
 */
import { PartnerApi } from "@frank/core/http"
import { AdminGroup } from "../admin/AdminGroup.js"

export const HostApi = PartnerApi.add(AdminGroup)
