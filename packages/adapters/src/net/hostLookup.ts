/**
 * How the guard resolves host names. Injectable so tests can make `hooks.example.com` resolve to
 * 10.1.2.3 without touching DNS; the default is the system resolver (getaddrinfo, /etc/hosts
 * included), the same one Node's net.connect would have used.
 */
import { lookup } from "node:dns/promises"

export interface ResolvedAddress {
  readonly address: string
  /** 4 or 6. */
  readonly family: number
}

/** Every address the name resolves to, in the resolver's order. */
export type HostLookup = (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>

export const systemLookup: HostLookup = (hostname) => lookup(hostname, { all: true })
