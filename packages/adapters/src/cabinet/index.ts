export * from "./Cabinet.js"
export * from "./CabinetOptions.js"
