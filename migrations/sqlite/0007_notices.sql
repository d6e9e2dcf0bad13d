-- GM notices waiting for the next Monday forms (`gm notice`): `printed_round` is the
-- round whose forms carried a notice (NULL while it waits), `mailed_at` when `--now`
-- mailed it on its own. `realm` NULL: every realm.
CREATE TABLE notices (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    realm         TEXT,
    text          TEXT    NOT NULL,
    created_at    INTEGER NOT NULL,
    printed_round INTEGER,
    printed_at    INTEGER,
    mailed_at     INTEGER
);
CREATE INDEX notices_waiting ON notices (printed_round, id);

-- Rate counters: how many of a thing (`replies:<realm>`, `resends:<realm>`) in one
-- slot of time (an hour or a day since the epoch).
CREATE TABLE rate_counts (
    name TEXT    NOT NULL,
    slot INTEGER NOT NULL,
    n    INTEGER NOT NULL,
    PRIMARY KEY (name, slot)
);

-- Replies held by flood control (the outbox row is in state `held` until the GM
-- releases it with `gm release`).
CREATE TABLE held_replies (
    outbox_id   INTEGER PRIMARY KEY,
    realm       TEXT    NOT NULL,
    held_at     INTEGER NOT NULL,
    released_at INTEGER
);
CREATE INDEX held_replies_realm ON held_replies (released_at, realm);
