/**
 * The `Tariffs` namespace: plans, the tariff configuration, the store port and the `Tariffs` service.
 */
export { Plan } from "./Plan.js"
export { defaultTariffConfig, tierOf } from "./TariffConfig.js"
export { Tariffs } from "./Tariffs.js"
