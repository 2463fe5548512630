-- A deletion's unfinished part: purge_pending marks an endpoint deleted but whose pending deliveries
-- are not yet removed, so a host that stopped in between leaves work the worker's sweep finishes. The
-- partial index holds only those (none, nearly always).
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

ALTER TABLE webhook_endpoints ADD COLUMN purge_pending boolean NOT NULL DEFAULT false;

CREATE INDEX webhook_endpoints_purges ON webhook_endpoints (deleted_at) WHERE purge_pending;
