/**
 * The content types a client may send with a body, for the hostile-input e2e and the fuzz run:
 * only `application/json` (any casing, with parameters) is read; every other one, and none,
 * answers 415 on an operation that takes a body.
 */
export const JSON_TYPES: ReadonlyArray<string> = [
  "application/json",
  "application/json; charset=utf-8",
  "Application/JSON",
  "APPLICATION/JSON;charset=UTF-8"
]

/** `undefined`: no Content-Type header at all. */
export const OTHER_TYPES: ReadonlyArray<string | undefined> = [
  undefined,
  "",
  "text/json",
  "application/vnd.api+json",
  "application/merge-patch+json",
  "application/problem+json",
  "application/x-ndjson",
  "application/json-seq",
  "application/jsonx",
  "application/xml",
  "text/xml",
  "text/plain",
  "text/plain; charset=utf-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/octet-stream",
  "application/javascript",
  "*/*",
  "json"
]
