/**
 * The import URL policy: the webhook endpoint policy (public HTTPS, no credentials, no IP
 * literals, no internal names) with import codes. Applied to the requested URL and again to every
 * redirect target; the dial-time guard still checks the address actually connected to.
 */
import { Either } from "effect"
import { checkEndpointUrl } from "../../net/endpointUrl.js"
import { ImportSourceInvalid, ImportSourceRefused } from "./ImportError.js"

/** Checks a URL a partner asks to import from: scheme, host and address policy; the reason on refusal. */
export const checkImportUrl = (
  raw: string,
  options: { readonly allowPrivateNetwork: boolean }
): Either.Either<URL, ImportSourceInvalid | ImportSourceRefused> =>
  Either.mapLeft(checkEndpointUrl(raw, options), (rejection) => {
    switch (rejection.code) {
      case "WEBHOOK_URL_IP_LITERAL":
      case "WEBHOOK_URL_INTERNAL_HOST":
        return new ImportSourceRefused({ message: rejection.message })
      default:
        return new ImportSourceInvalid({ message: rejection.message })
    }
  })

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i

export const isUuidV4 = (s: string): boolean => UUID_V4.test(s)
