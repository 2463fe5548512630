export * from "./StoredFileLookup.js"
