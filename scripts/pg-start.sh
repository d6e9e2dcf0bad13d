#!/usr/bin/env bash
# Start a throwaway PostgreSQL on 127.0.0.1 for pbemd's tests (no systemd needed).
# Installs Debian's postgresql package when no server binaries are found. Idempotent.
# Env: PBEMD_PG_DIR (default /tmp/pbemd-pg), PBEMD_PG_PORT (default 55432).
# Prints the URL to use as PBEMD_TEST_PG_URL on its last line.
set -euo pipefail
ROOT=${PBEMD_PG_DIR:-/tmp/pbemd-pg}
PORT=${PBEMD_PG_PORT:-55432}

find_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ] && [ -x "$d/postgres" ] && { echo "$d"; return 0; }
  done
  return 1
}
if ! BIN=$(find_bin); then
  echo "installing postgresql (Debian package)…" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  BIN=$(find_bin)
fi
# initdb and postgres refuse to run as root: use the postgres system user.
id postgres >/dev/null 2>&1 || useradd --system --user-group --home-dir "$ROOT" --shell /bin/sh postgres
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

mkdir -p "$ROOT"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$ROOT"
if [ ! -s "$ROOT/data/PG_VERSION" ]; then
  as_pg "$BIN/initdb" -D "$ROOT/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
fi
if ! as_pg "$BIN/pg_ctl" -D "$ROOT/data" status >/dev/null 2>&1; then
  rm -f "$ROOT/data/postmaster.pid"
  as_pg "$BIN/pg_ctl" -D "$ROOT/data" -l "$ROOT/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -c unix_socket_directories=$ROOT -c fsync=off -c max_connections=200" start >/dev/null
fi
for _ in $(seq 1 100); do
  (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break
  sleep 0.1
done
as_pg "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -qtAc \
  "DO \$\$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname='pbemd') THEN CREATE ROLE pbemd LOGIN SUPERUSER PASSWORD 'pbemd'; END IF; END\$\$;" >/dev/null
# Each test makes its own database and leaves it for a look afterwards; the next run
# drops those of earlier runs, so the folder does not grow run after run. A database
# still in use (a run going on beside this one) is left alone.
as_pg "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -qtAc \
  "SELECT datname FROM pg_database WHERE datname LIKE 'pbemd\\_t\\_%' OR datname LIKE 'pbemd\\_h3\\_%'" |
  while read -r db; do
    [ -n "$db" ] && as_pg "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -qtAc "DROP DATABASE IF EXISTS \"$db\"" >/dev/null 2>&1 || true
  done
echo "postgres://pbemd:pbemd@127.0.0.1:$PORT/postgres"
