/**
 * A request array with its real maximum, checked before its elements are decoded: decoding a
 * million elements (and reporting each one's error) cost seconds and hundreds of MiB (issue 31),
 * while the length check is one comparison. The OpenAPI document shows the array as declared
 * (`items`, `maxItems`) through a surrogate of the plain bounded array. Use it with
 * `optionalWith(…, { exact: true })`: a union with `undefined` (or `null`, hence the nullable
 * form) would also report the refused value, formatted in full, once per branch.
 */
import { Schema, SchemaAST } from "effect"

const lengthFirst = <A, I, R>(documented: Schema.Schema<A, I, R>, maxItems: number, message: string) => {
  const checked = Schema.Unknown.pipe(
    Schema.filter((u) => !Array.isArray(u) || u.length <= maxItems, { message: () => message })
  )
  return Schema.compose(checked, documented, { strict: false }).annotations({
    [SchemaAST.SurrogateAnnotationId]: documented.ast
  }) as unknown as Schema.Schema<A, I, R>
}

const bounded = <A, I, R>(item: Schema.Schema<A, I, R>, maxItems: number, message: string) =>
  Schema.Array(item).pipe(Schema.maxItems(maxItems, { message: () => message }))

export const BoundedArray = <A, I, R>(
  item: Schema.Schema<A, I, R>,
  maxItems: number,
  message: string
): Schema.Schema<ReadonlyArray<A>, ReadonlyArray<I>, R> =>
  lengthFirst(bounded(item, maxItems, message), maxItems, message)

/** The same array, or null. */
export const NullableBoundedArray = <A, I, R>(
  item: Schema.Schema<A, I, R>,
  maxItems: number,
  message: string
): Schema.Schema<ReadonlyArray<A> | null, ReadonlyArray<I> | null, R> =>
  lengthFirst(Schema.NullOr(bounded(item, maxItems, message)), maxItems, message)
