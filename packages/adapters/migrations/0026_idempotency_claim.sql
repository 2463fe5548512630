-- Claiming an Idempotency-Key in one round trip (docs/performance.md, issue 33): the advisory lock
-- and the read of a stored answer were two statements, the read after the lock so that its
-- snapshot sees an answer committed by the transaction that held the key before. In one plain
-- statement the snapshot would be taken before the lock is granted and could miss that answer;
-- inside a VOLATILE PL/pgSQL function every command takes a fresh snapshot (READ COMMITTED), so
-- the read here still comes after the lock. `locked` false: another transaction holds the key;
-- true with a null fingerprint: the key is free and now held by this transaction.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE FUNCTION idempotency_claim(p_scope text, p_key text)
RETURNS TABLE (locked boolean, fingerprint text, status integer, body text, content_type text)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtextextended(p_scope || chr(10) || p_key, 0)) THEN
    RETURN QUERY SELECT false, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  RETURN QUERY
    SELECT true, k.fingerprint, k.status, k.body, k.content_type
    FROM idempotency_keys AS k WHERE k.scope = p_scope AND k.key = p_key;
  IF NOT FOUND THEN
    RETURN QUERY SELECT true, NULL::text, NULL::integer, NULL::text, NULL::text;
  END IF;
END
$$;
