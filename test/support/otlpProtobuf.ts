/**
 * Decodes OTLP/HTTP protobuf export requests with protobufjs, against the part of the
 * specification's .proto files (opentelemetry-proto v1: common, resource, trace, logs, metrics,
 * field numbers as published) the tests read. Fields not declared here are skipped by the
 * decoder, as the wire format allows. The result has the OTLP/JSON shape (camelCase names, trace
 * and span ids in hex, 64-bit integers as strings), so the tests read both encodings alike.
 */
import protobuf from "protobufjs"
import type { OtlpBody } from "./otlpCollector.js"

const PROTO = `
syntax = "proto3";
package otlp;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }

message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  string name = 5;
  SpanKind kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  repeated Link links = 13;
  Status status = 15;
  fixed32 flags = 16;
  enum SpanKind {
    SPAN_KIND_UNSPECIFIED = 0;
    SPAN_KIND_INTERNAL = 1;
    SPAN_KIND_SERVER = 2;
    SPAN_KIND_CLIENT = 3;
    SPAN_KIND_PRODUCER = 4;
    SPAN_KIND_CONSUMER = 5;
  }
  message Link {
    bytes trace_id = 1;
    bytes span_id = 2;
    string trace_state = 3;
    repeated KeyValue attributes = 4;
    fixed32 flags = 6;
  }
}
message Status {
  string message = 2;
  StatusCode code = 3;
  enum StatusCode { STATUS_CODE_UNSET = 0; STATUS_CODE_OK = 1; STATUS_CODE_ERROR = 2; }
}

message ExportLogsServiceRequest { repeated ResourceLogs resource_logs = 1; }
message ResourceLogs { Resource resource = 1; repeated ScopeLogs scope_logs = 2; string schema_url = 3; }
message ScopeLogs { InstrumentationScope scope = 1; repeated LogRecord log_records = 2; string schema_url = 3; }
message LogRecord {
  fixed64 time_unix_nano = 1;
  int32 severity_number = 2;
  string severity_text = 3;
  AnyValue body = 5;
  repeated KeyValue attributes = 6;
  fixed32 flags = 8;
  bytes trace_id = 9;
  bytes span_id = 10;
}

message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; string schema_url = 3; }
message ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2; string schema_url = 3; }
message Metric { string name = 1; string description = 2; string unit = 3; }
`

const root = protobuf.parse(PROTO).root
const REQUESTS: Record<string, protobuf.Type> = {
  "/v1/traces": root.lookupType("otlp.ExportTraceServiceRequest"),
  "/v1/logs": root.lookupType("otlp.ExportLogsServiceRequest"),
  "/v1/metrics": root.lookupType("otlp.ExportMetricsServiceRequest")
}

/** OTLP/JSON writes these byte fields as hex, not base64 (the specification's exception). */
const HEX_IDS = new Set(["traceId", "spanId", "parentSpanId"])

const toJsonShape = (value: unknown, key = ""): unknown => {
  if (value instanceof Uint8Array)
    return HEX_IDS.has(key) ? Buffer.from(value).toString("hex") : Buffer.from(value).toString("base64")
  if (Array.isArray(value)) return value.map((v) => toJsonShape(v))
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonShape(v, k)]))
  return value
}

/** The export request posted to `path` (`/v1/traces`, `/v1/logs`, `/v1/metrics`), in the JSON shape. */
export const decodeOtlpProtobuf = (path: string, bytes: Uint8Array): OtlpBody => {
  const type = REQUESTS[path]
  if (type === undefined) throw new Error(`no OTLP signal at ${path}`)
  const message = type.decode(bytes)
  // Enums as numbers, 64-bit integers as strings (as OTLP/JSON), empty scalars left out, empty
  // lists kept.
  return toJsonShape(
    type.toObject(message, { longs: String, enums: Number, defaults: false, arrays: true })
  ) as OtlpBody
}
