-- The spine: game state versions, audit events, inbox, messages, deliveries, outbox,
-- forms, IMAP cursor, fired schedule events. Instants are milliseconds since the epoch.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE game_state (
    version    INTEGER PRIMARY KEY,
    round      INTEGER NOT NULL,
    schema     INTEGER NOT NULL,
    doc        TEXT    NOT NULL,
    reason     TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE events (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    at     INTEGER NOT NULL,
    round  INTEGER NOT NULL,
    kind   TEXT    NOT NULL,
    realm  TEXT,
    ref_id INTEGER,
    detail TEXT    NOT NULL
);
CREATE INDEX events_round ON events (round, id);

CREATE TABLE inbox (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    dedup_key        TEXT    NOT NULL UNIQUE,
    message_id       TEXT,
    sha256           TEXT    NOT NULL,
    source           TEXT    NOT NULL,
    raw              BLOB    NOT NULL,
    size             INTEGER NOT NULL,
    received_at      INTEGER NOT NULL,
    imap_uidvalidity INTEGER,
    imap_uid         INTEGER,
    state            TEXT    NOT NULL DEFAULT 'new',
    processed_at     INTEGER
);
CREATE INDEX inbox_state ON inbox (state, id);

CREATE TABLE messages (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    inbox_id   INTEGER NOT NULL UNIQUE REFERENCES inbox (id),
    kind       TEXT    NOT NULL,
    realm      TEXT,
    to_realm   TEXT,
    lang       TEXT,
    from_addr  TEXT,
    subject    TEXT    NOT NULL,
    body       TEXT    NOT NULL,
    state      TEXT    NOT NULL,
    reason     TEXT,
    round      INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX messages_state ON messages (state, id);

CREATE TABLE deliveries (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id   INTEGER NOT NULL REFERENCES messages (id),
    to_realm     TEXT    NOT NULL,
    due_at       INTEGER NOT NULL,
    state        TEXT    NOT NULL DEFAULT 'due',
    delivered_at INTEGER,
    outbox_id    INTEGER
);
CREATE INDEX deliveries_due ON deliveries (state, due_at);

CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    dedup_key       TEXT    NOT NULL UNIQUE,
    message_id      TEXT    NOT NULL,
    kind            TEXT    NOT NULL,
    to_addrs        TEXT    NOT NULL,
    from_addr       TEXT    NOT NULL,
    subject         TEXT    NOT NULL,
    raw             BLOB    NOT NULL,
    created_at      INTEGER NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    sent_at         INTEGER,
    last_error      TEXT,
    state           TEXT    NOT NULL DEFAULT 'pending'
);
CREATE INDEX outbox_due ON outbox (state, next_attempt_at);

CREATE TABLE forms (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id    INTEGER NOT NULL REFERENCES messages (id),
    realm         TEXT    NOT NULL,
    round         INTEGER NOT NULL,
    received_at   INTEGER NOT NULL,
    body          TEXT    NOT NULL,
    orders        TEXT,
    superseded_by INTEGER
);
CREATE INDEX forms_realm_round ON forms (realm, round);

CREATE TABLE imap_cursor (
    mailbox      TEXT PRIMARY KEY,
    uid_validity INTEGER NOT NULL,
    last_uid     INTEGER NOT NULL
);

CREATE TABLE schedule_fired (
    name     TEXT    NOT NULL,
    at       INTEGER NOT NULL,
    kind     TEXT    NOT NULL,
    fired_at INTEGER NOT NULL,
    PRIMARY KEY (name, at)
);
