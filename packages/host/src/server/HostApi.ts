/**
 * The host's HttpApi: the partner API plus the operator's admin API, so one server, one OpenAPI
 * document. The typed partner client stays on PartnerApi alone.
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { documentErrors, partnerAuthCodes, partnerOperationDocs } from "@frank/core/http"
import { adminAuthCodes, adminOperationDocs } from "../admin/adminOperationDocs.js"
import { AdminGroup } from "../admin/AdminGroup.js"
import { hostBodyRefusals, hostServerRefusals } from "./refusals.js"
import { PartnerApi } from "@frank/core/http"

export const HostApi = PartnerApi.add(AdminGroup).annotate(
  OpenApi.Transform,
  documentErrors(
    { ...partnerOperationDocs, ...adminOperationDocs },
    { ...partnerAuthCodes, ...adminAuthCodes },
    hostBodyRefusals,
    hostServerRefusals
  )
)
