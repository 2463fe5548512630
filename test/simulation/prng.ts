/**
 * A small seeded PRNG (mulberry32): the whole campaign draws from it, so one seed replays one run
 * exactly. Not for secrets.
 */
export interface Prng {
  /** A float in [0, 1). */
  readonly next: () => number
  /** An integer in [min, max]. */
  readonly int: (min: number, max: number) => number
  readonly chance: (p: number) => boolean
  readonly pick: <A>(items: ReadonlyArray<A>) => A
  /** One key of `weights`, drawn in proportion to its weight. */
  readonly weighted: <K extends string>(weights: Readonly<Record<K, number>>) => K
}

export const makePrng = (seed: number): Prng => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error("pick from an empty list")
      return items[int(0, items.length - 1)]!
    },
    weighted: (weights) => {
      const entries = Object.entries(weights) as Array<[keyof typeof weights, number]>
      const total = entries.reduce((s, [, w]) => s + w, 0)
      let x = next() * total
      for (const [k, w] of entries) {
        x -= w
        if (x < 0) return k
      }
      return entries[entries.length - 1]![0]
    }
  }
}

/** A number derived from several parts, for decisions that must not depend on call order. */
export const hashOf = (...parts: ReadonlyArray<string | number>): number => {
  let h = 2166136261
  for (const ch of parts.join("|")) {
    h ^= ch.charCodeAt(0)
    h = Math.imul(h, 16777619)
  }
  // FNV alone barely moves the high bits for a change in the last character: finish with
  // murmur3's avalanche so every part decides the whole value.
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return (h >>> 0) / 4294967296
}
