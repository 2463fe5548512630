-- An endpoint's pending deliveries are found without reading its history (reactivation and
-- deletion); docs/decisions.md.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE INDEX webhook_deliveries_pending_by_endpoint ON webhook_deliveries (partner_id, endpoint_id) WHERE status = 'pending';
