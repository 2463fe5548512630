export * from "./render.js"
export * from "./SandboxGenerationProvider.js"
