/** The command line itself is wrong (exit 2, with the command's usage); the host was not asked. */
export class UsageError extends Error {
  override readonly name = "UsageError"
}
