-- Every query of the inbox by state is served by inbox_waiting (state, received_at,
-- id); the older index only cost a second update for every stored and handled mail.
DROP INDEX inbox_state;
