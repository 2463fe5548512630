/** A listen address as the host part of a URL: IPv6 addresses need brackets there. */
export const urlHost = (host: string): string => (host.includes(":") && !host.startsWith("[") ? `[${host}]` : host)
