-- The application's own tables, in `public`, as a backend has them before it embeds Frank.
-- Frank has tables called sessions, payments and tasks too: in its own schema (`frank`), so both
-- sets live in one database. Names are schema-qualified because on embedded PGlite the app's
-- statements run on Frank's connection, whose search_path is Frank's schema.
CREATE TABLE IF NOT EXISTS public.users (
  id uuid PRIMARY KEY,
  email text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  -- The Frank partner that bills this user.
  partner_id text NOT NULL UNIQUE,
  -- Credits bought so far, in minor units: unverified accounts may buy 1 000 ₣ in all.
  purchased_minor bigint NOT NULL DEFAULT 0,
  CONSTRAINT purchase_cap CHECK (purchased_minor <= 100000),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS public.sessions (
  token text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES public.users (id),
  expires_at timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS public.payments (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES public.users (id),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS public.tasks (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES public.users (id),
  title text NOT NULL,
  done boolean NOT NULL DEFAULT false
);
