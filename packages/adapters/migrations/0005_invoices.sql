-- Legal-entity invoices: company profiles (revision guards saves), invoices (a paid one names its
-- ledger entry, so "paid" and "credited" cannot drift apart), and the sandbox bank's own book, which
-- stands for a system outside Frank. The operator's controls name an invoice by Frank's id and the SBP
-- page by the bank's id, whichever partner it is of.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE TABLE company_profiles (
  partner_id text PRIMARY KEY,
  revision integer NOT NULL CHECK (revision >= 1),
  company_name text NOT NULL,
  inn text NOT NULL CHECK (inn ~ '^([0-9]{10}|[0-9]{12})$'),
  kpp text,
  ogrn text,
  legal_address text NOT NULL,
  postal_address text,
  email text NOT NULL,
  phone text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);

CREATE TABLE legal_invoices (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  number text NOT NULL,
  status text NOT NULL CHECK (status IN ('issued', 'paid', 'canceled', 'expired')),
  amount_rub integer NOT NULL CHECK (amount_rub BETWEEN 1 AND 100000),
  comment text CHECK (char_length(comment) <= 140),
  profile_revision integer NOT NULL CHECK (profile_revision >= 1),
  payer text NOT NULL,
  bank_invoice_id text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  due_at bigint,
  credited_at bigint,
  transaction_id text,
  PRIMARY KEY (partner_id, id),
  CHECK ((status = 'paid') = (transaction_id IS NOT NULL AND credited_at IS NOT NULL))
);

CREATE INDEX legal_invoices_newest ON legal_invoices (partner_id, created_at DESC, id DESC);

CREATE TABLE sandbox_bank_invoices (
  partner_id text NOT NULL,
  bank_invoice_id text NOT NULL,
  invoice_id text NOT NULL,
  number bigint GENERATED ALWAYS AS IDENTITY,
  status text NOT NULL CHECK (status IN ('issued', 'paid', 'canceled')),
  amount_rub integer NOT NULL,
  comment text,
  payer text NOT NULL,
  issued_at bigint NOT NULL,
  due_at bigint NOT NULL,
  settled_at bigint,
  PRIMARY KEY (partner_id, bank_invoice_id)
);

CREATE INDEX sandbox_bank_invoices_by_invoice ON sandbox_bank_invoices (invoice_id);

CREATE UNIQUE INDEX sandbox_bank_invoices_by_bank_id ON sandbox_bank_invoices (bank_invoice_id);
