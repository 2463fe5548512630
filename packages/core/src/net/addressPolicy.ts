/**
 * Which addresses outbound requests (webhook deliveries, media imports) may reach. Only public
 * unicast addresses: loopback, private, link-local (cloud metadata), CGNAT, reserved, multicast,
 * unspecified and IPv4-mapped forms of those are refused. ipaddr.js parses every IPv4 notation
 * (2130706433, 0x7f.1, 017700000001, 127.1) and unwraps ::ffff:a.b.c.d before classifying.
 */
import ipaddr from "ipaddr.js"

export const stripBrackets = (host: string): string => host.replace(/^\[|\]$/g, "")

/** True when `host` is an IP address in any notation (bracketed IPv6 included). */
export const isIpLiteral = (host: string): boolean => ipaddr.isValid(stripBrackets(host))

/** The range name ipaddr.js gives the address (`unicast` for public ones), after unwrapping IPv4-mapped IPv6. */
export const addressRange = (ip: string): string => ipaddr.process(stripBrackets(ip)).range()

/** Whether an IP address is public (not private, loopback, link-local or reserved). */
export const isPublicAddress = (ip: string): boolean => isIpLiteral(ip) && addressRange(ip) === "unicast"
