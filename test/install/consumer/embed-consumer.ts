// A strict TypeScript embedder of the Promise API, typechecked against the shipped .d.ts by the
// pack-install test: `createFrank`, its methods' types and `switch (e.code)` on FrankError.
import { createFrank, type Frank, FrankError, type FrankOptions } from "@frank/host/embed"
import type { Pool, PoolClient } from "pg"

export const options = (pool: Pool): FrankOptions => ({
  pool,
  pepper: "a-long-random-secret",
  publicBaseUrl: "https://app.example.com",
  basePath: "/billing"
})

export const buyCredits = async (frank: Frank, client: PoolClient, partnerId: string): Promise<number> => {
  await client.query("BEGIN")
  try {
    const tx = frank.inTransaction(client)
    const moved = await tx.ledger.credit(partnerId, { kind: "topup", amountMinor: 50_000, reference: "order-1" })
    await client.query("COMMIT")
    return moved.entry.amountMinor
  } catch (e) {
    await client.query("ROLLBACK")
    throw e
  }
}

export const spend = async (frank: Frank, partnerId: string, taskId: string): Promise<string> => {
  try {
    await frank.ledger.reserve(partnerId, { taskId, amountMinor: 1_000 })
    const settled = await frank.ledger.confirm(partnerId, { taskId, amountMinor: 700 })
    const balance = await frank.ledger.balance(partnerId)
    return `${settled.hold.status} ${balance.available}`
  } catch (e) {
    if (!(e instanceof FrankError)) throw e
    switch (e.code) {
      case "INSUFFICIENT_FUNDS":
        return `short by ${String(e.details.requiredFranks)} (${e.status})`
      default:
        throw e
    }
  }
}

export const start = async (pool: Pool): Promise<() => Promise<void>> => {
  const frank = await createFrank(options(pool))
  await frank.worker.start()
  const partner = await frank.partners.create("Acme")
  const link: string = await frank.sessions.signInUrl(partner.id)
  const endpoint = await frank.endpoints.create(partner.id, { url: "https://hooks.example.com/frank" })
  const page = await frank.deliveries.list(partner.id, { filter: { endpointId: endpoint.id }, limit: 10 })
  const quote = await frank.pricing.estimate({ modelId: "veo-3", prompt: "hello" })
  void [link, page.deliveries.length, quote.totalFranks]
  return () => frank.close()
}
