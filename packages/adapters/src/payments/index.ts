export * from "./MemorySandboxAcquirerStore.js"
export * from "./SandboxAcquirer.js"
export * from "./SandboxAcquirerStore.js"
export { decodeNotification, encodeNotification, SIGNATURE_HEADER, type SandboxNotice } from "./sandboxNotification.js"
