-- Waiting mail is claimed in order of receipt: the index serves that order directly,
-- so claiming the next mail does not read every waiting row.
CREATE INDEX inbox_waiting ON inbox (state, received_at, id);
