/**
 * What each kill left leased, and whether the deliveries that ended `uncertain` had reached the
 * receiver (issue 31: uncertain means sent). Right after each SIGKILL the campaign notes the
 * deliveries its partners had `delivering`, by claim token: a lease seen for the first time
 * belongs to the host just killed (one from an earlier kill can still be running out). At the end
 * each uncertain delivery is counted against the last kill that held it leased, and checked
 * against the receiver's log of request starts (headers received, body or not).
 */
import type pg from "pg"

/** At least this share of the uncertain deliveries must have reached the receiver. */
export const MIN_UNCERTAIN_REACHED = 0.9

export interface LeaseReport {
  /** Per kill, the leases the killed host held (new since the previous kill). */
  readonly leasedPerKill: ReadonlyArray<number>
  /** Per kill, how many of those deliveries ended uncertain. */
  readonly uncertainPerKill: ReadonlyArray<number>
  /** Uncertain deliveries no kill held leased (the last host's own, after a clock jump). */
  readonly uncertainOtherwise: number
  readonly uncertain: number
  /** Uncertain deliveries whose request the receiver saw start. */
  readonly uncertainReached: number
}

export interface UncertainDelivery {
  readonly id: string
  readonly eventId: string
}

export const makeLeaseLog = () => {
  const lastLease = new Map<string, { readonly kill: number; readonly token: string }>()
  const leasedPerKill: Array<number> = []
  return {
    /** Notes the leases the host killed as kill number `kill` (0-based) left behind. */
    afterKill: async (db: pg.Client, partnerIds: ReadonlyArray<string>, kill: number): Promise<void> => {
      const { rows } = await db.query<{ id: string; claim_token: string }>(
        `SELECT id::text, claim_token FROM webhook_deliveries WHERE partner_id = ANY($1) AND status = 'delivering'`,
        [partnerIds]
      )
      let fresh = 0
      for (const r of rows) {
        if (lastLease.get(r.id)?.token === r.claim_token) continue
        lastLease.set(r.id, { kill, token: r.claim_token })
        fresh++
      }
      leasedPerKill.push(fresh)
    },
    report: (uncertain: ReadonlyArray<UncertainDelivery>, started: ReadonlySet<string>): LeaseReport => {
      const uncertainPerKill = leasedPerKill.map(() => 0)
      let otherwise = 0
      for (const d of uncertain) {
        const kill = lastLease.get(d.id)?.kill
        if (kill === undefined) otherwise++
        else uncertainPerKill[kill] = (uncertainPerKill[kill] ?? 0) + 1
      }
      return {
        leasedPerKill,
        uncertainPerKill,
        uncertainOtherwise: otherwise,
        uncertain: uncertain.length,
        uncertainReached: uncertain.filter((d) => started.has(d.eventId)).length
      }
    }
  }
}

/** The check: too few uncertain deliveries reached the receiver (none uncertain passes). */
export const uncertainViolations = (r: LeaseReport): ReadonlyArray<string> =>
  r.uncertain > 0 && r.uncertainReached < MIN_UNCERTAIN_REACHED * r.uncertain
    ? [
        `${r.uncertain - r.uncertainReached} of ${r.uncertain} uncertain deliveries never reached the receiver (at least ${MIN_UNCERTAIN_REACHED * 100} % must have)`
      ]
    : []

/** The report's lines: per kill, leases left and uncertain deliveries; the share that reached the receiver. */
export const describeLeases = (r: LeaseReport): string =>
  [
    `leased at each kill: ${r.leasedPerKill.join(" ")}`,
    `uncertain per kill:  ${r.uncertainPerKill.join(" ")}${r.uncertainOtherwise > 0 ? ` (+${r.uncertainOtherwise} not held by a kill)` : ""}`,
    `uncertain deliveries that reached the receiver: ${r.uncertainReached} of ${r.uncertain}`
  ].join("\n")
