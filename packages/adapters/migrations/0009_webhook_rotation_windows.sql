-- Endpoints holding a previous secret, for the sweep that wipes it when its rotation window ends and
-- for the worker's next wake-up. Partial: the sweep, which usually finds nothing, reads nothing.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE INDEX webhook_endpoints_rotation_windows ON webhook_endpoints (previous_secret_valid_until) WHERE previous_secret IS NOT NULL;
