-- An over-limit mail keeps its headers and the start of its body in `raw`; `size` stays
-- the original size and `truncated` says the rest was left in the mailbox.
ALTER TABLE inbox ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0;
