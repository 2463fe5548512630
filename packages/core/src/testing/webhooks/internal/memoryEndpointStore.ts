/** The memory webhook store's `EndpointStore`: endpoints as the `Webhooks` service keeps them. */
import type { EndpointStoreShape } from "../../../webhooks/store/EndpointStore.js"
import { byId, key, live, liveOf, type MemoryWebhookState, publicEndpoint } from "./memoryWebhookState.js"

export const memoryEndpointStore = (state: MemoryWebhookState): EndpointStoreShape => {
  const { endpoints, deliveries, locked } = state
  return {
    insertEndpoint: (endpoint, maxPerPartner) =>
      locked(() => {
        if (liveOf(state, endpoint.partnerId).length >= maxPerPartner) return false
        endpoints.set(key(endpoint.partnerId, endpoint.id), { ...endpoint, deletedAt: null })
        return true
      }),

    listEndpoints: (partnerId) =>
      locked(() =>
        liveOf(state, partnerId)
          .sort((a, b) => a.createdAt - b.createdAt || byId(a, b))
          .map(publicEndpoint)
      ),

    getEndpoint: (partnerId, id) =>
      locked(() => {
        const e = live(state, partnerId, id)
        return e === undefined ? undefined : publicEndpoint(e)
      }),

    modifyEndpoint: (partnerId, id, change) =>
      locked(() => {
        const e = live(state, partnerId, id)
        if (e === undefined) return undefined
        const next = change(publicEndpoint(e))
        endpoints.set(key(partnerId, id), { ...next, deletedAt: null })
        return next
      }),

    // One step under the store's lock: nothing is ever left half done (the queue's
    // `purgeDeletedEndpoints` has nothing to finish here).
    deleteEndpoint: (partnerId, id, now) =>
      locked(() => {
        const e = live(state, partnerId, id)
        if (e === undefined) return false
        endpoints.set(key(partnerId, id), {
          ...e,
          active: false,
          secret: "",
          previousSecret: null,
          previousSecretValidUntil: null,
          updatedAt: now,
          deletedAt: now
        })
        for (const [k, d] of deliveries)
          if (d.partnerId === partnerId && d.endpointId === id && d.status === "pending") deliveries.delete(k)
        // Its rate window goes with it, as the SQL store's rate row does.
        state.rateWindows.delete(key(partnerId, id))
        return true
      })
  }
}
