-- Placeholder on branch issue-23-rec only: migration ids must run without gaps, and 0017 belongs to
-- the signature-scheme change (branch issue-23-sig). It changes nothing; on merge that branch's
-- 0017 replaces this file.
SELECT 1;
