/** The names of the fields a command sets (present and not undefined): what an audit record lists. */
export const fieldsOf = (command: object, rename: Readonly<Record<string, string>> = {}): ReadonlyArray<string> =>
  Object.entries(command)
    .filter(([, value]) => value !== undefined)
    .map(([name]) => rename[name] ?? name)
