import { Data } from "effect"

/** A secret file in the data directory could not be read or written (permissions, disk, ...). */
export class SecretFileError extends Data.TaggedError("SecretFileError")<{
  readonly path: string
  readonly reason: string
}> {
  override get message() {
    return `secret file ${this.path}: ${this.reason}`
  }
}
