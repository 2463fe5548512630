export * from "./Plan.js"
export * from "./TariffConfig.js"
export * from "./tariffView.js"
export * from "./Tariffs.js"
