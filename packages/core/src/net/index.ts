export * from "./addressPolicy.js"
export * from "./endpointUrl.js"
