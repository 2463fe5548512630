/**
 * Imported Web Crypto HMAC keys, cached by the secret they come from: importing costs as much as
 * signing a small body. One cache per way of deriving key bytes from a secret (the two signature
 * schemes derive different keys from the same string). Bounded: cleared when full.
 */
const MAX_CACHED_KEYS = 1024

export const hmacKeyCache = (keyBytes: (secret: string) => Uint8Array<ArrayBuffer>) => {
  const keys = new Map<string, Promise<CryptoKey>>()
  return (secret: string): Promise<CryptoKey> => {
    const cached = keys.get(secret)
    if (cached !== undefined) return cached
    if (keys.size >= MAX_CACHED_KEYS) keys.clear()
    let key: Promise<CryptoKey>
    try {
      key = crypto.subtle.importKey("raw", keyBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
    } catch (error) {
      // A secret whose key bytes cannot be derived fails its own signature, like a refused import.
      return Promise.reject(error)
    }
    keys.set(secret, key)
    // A failed import must not stay cached.
    key.catch(() => keys.delete(secret))
    return key
  }
}
