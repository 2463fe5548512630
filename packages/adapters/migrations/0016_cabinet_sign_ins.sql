-- One-time cabinet sign-in links (the admin API's `signInUrl`): only the keyed hash of the token
-- is kept, like sessions. `used_at` makes a link single-use; a link lives 15 minutes. Looked up by
-- hash (the partner is what the lookup finds out), as sessions are.
CREATE TABLE cabinet_sign_ins (
  partner_id text NOT NULL,
  token_hash text NOT NULL,
  session_ttl_seconds integer NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  used_at bigint,
  PRIMARY KEY (partner_id, token_hash)
);
CREATE UNIQUE INDEX cabinet_sign_ins_hash ON cabinet_sign_ins (token_hash);
