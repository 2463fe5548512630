-- Rate rows of deleted endpoints (issue 34). Until now deleting a rate-limited endpoint left its
-- row in webhook_endpoint_rates (migration 0029); the deletion now removes it with the endpoint's
-- pending deliveries (pendingGuard.ts). This removes the ones left by earlier deletions: while
-- any row is there every claim runs in rounds instead of migration 0028's statement.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

DELETE FROM webhook_endpoint_rates r
WHERE NOT EXISTS (
  SELECT 1 FROM webhook_endpoints e
  WHERE e.partner_id = r.partner_id AND e.id = r.endpoint_id AND e.deleted_at IS NULL
);
