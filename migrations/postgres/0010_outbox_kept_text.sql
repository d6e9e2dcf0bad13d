-- A plain mail (no files) is queued as its text (`body`) and the header fields the
-- row's other columns do not hold (`head`, JSON: the sender's name, the Date, what it
-- answers), and formatted when it is read, into the bytes it would have been queued as;
-- its `raw` is then empty. Rows queued before keep their formatted `raw` and no head.
ALTER TABLE outbox ADD COLUMN head TEXT;
ALTER TABLE outbox ADD COLUMN body BYTEA;
