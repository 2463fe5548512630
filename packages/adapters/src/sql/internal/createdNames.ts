/**
 * The names of the objects a migration's text creates (tables, views, functions, sequences,
 * types), read from its `CREATE` statements. Used only to move a database of earlier builds out
 * of `public` (adoptPublic.ts): the objects of Frank there are exactly the ones its applied
 * migrations created, and anything else in `public` belongs to the application and stays.
 *
 * A text match is enough for these files: they are ours, name objects unqualified and
 * unquoted, and a CREATE inside a comment is dropped first. Indexes, constraints, triggers and
 * identity sequences need no name: they move with their table.
 */

const LINE_COMMENT = /--[^\n]*/g
const CREATE =
  /\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:UNLOGGED\s+)?(?:MATERIALIZED\s+)?(?:TABLE|VIEW|FUNCTION|PROCEDURE|SEQUENCE|TYPE|DOMAIN)\s+(?:IF\s+NOT\s+EXISTS\s+)?([A-Za-z_][A-Za-z0-9_]*)/gi

/** The objects `text` creates, lower-cased as Postgres folds unquoted names, each once. */
export const createdNames = (text: string): ReadonlyArray<string> => {
  const names = new Set<string>()
  for (const match of text.replace(LINE_COMMENT, "").matchAll(CREATE)) names.add((match[1] as string).toLowerCase())
  return [...names]
}
