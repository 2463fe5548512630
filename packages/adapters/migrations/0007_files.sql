-- Stored files: what import learned about a file whose bytes are in the blob store. The index on id
-- alone serves the file URL, whose token (not a partner's key) authorises the read.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE TABLE stored_files (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('image', 'video', 'audio', 'document')),
  mime_type text NOT NULL,
  size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
  width integer CHECK (width > 0),
  height integer CHECK (height > 0),
  duration_seconds double precision CHECK (duration_seconds > 0),
  fps double precision CHECK (fps > 0),
  page_count integer CHECK (page_count > 0),
  blob_key text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (partner_id, id)
);

CREATE INDEX stored_files_by_id ON stored_files (id);
