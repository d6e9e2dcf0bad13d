-- Long documents are stored in pieces of at most 1 MiB: a row's document column holds
-- the first piece and `pieces` says how many more the row has in `doc_pieces`, in
-- order (`seq` from 1) for each of its columns. A whole large game state (tens of MB)
-- then never passes through the database as one buffer: each piece is a buffer the
-- size of a small game's, which the C allocator reuses from one weekend to the next
-- instead of mapping fresh memory every time. Rows written before hold their whole
-- document and no pieces.
ALTER TABLE game_state ADD COLUMN pieces INTEGER NOT NULL DEFAULT 0;
ALTER TABLE resolutions ADD COLUMN pieces INTEGER NOT NULL DEFAULT 0;
CREATE TABLE doc_pieces (
    owner   TEXT    NOT NULL,
    row_id  INTEGER NOT NULL,
    col     TEXT    NOT NULL,
    seq     INTEGER NOT NULL,
    piece   TEXT    NOT NULL,
    PRIMARY KEY (owner, row_id, col, seq)
);
