-- A placeholder on the endpoint-health branch only: ids must run without gaps, and 0017 and 0018
-- belong to branches merged beside this one (signature scheme, recovery). Their files replace
-- this one on merge; it changes nothing.
SELECT 1;
