-- Weekend resolutions: each round's inputs (the state version resolved, the orders that
-- counted, the rule settings, the seed) and outputs (the engine's state, the events, the
-- rolls, the state version written), stored in the transaction that writes the state.
-- A rolled-back resolution is kept with `rolled_back_at`; at most one per round stands.
CREATE TABLE resolutions (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    round           INTEGER NOT NULL,
    base_version    INTEGER NOT NULL,
    new_version     INTEGER NOT NULL,
    orders          TEXT    NOT NULL,
    settings        TEXT    NOT NULL,
    seed            TEXT    NOT NULL,
    output_state    TEXT    NOT NULL,
    events          TEXT    NOT NULL,
    rolls           TEXT    NOT NULL,
    created_at      INTEGER NOT NULL,
    results_sent_at INTEGER,
    rolled_back_at  INTEGER
);
CREATE UNIQUE INDEX resolutions_one_standing ON resolutions (round) WHERE rolled_back_at IS NULL;
