#!/usr/bin/env bash
# Stop the test PostgreSQL started by pg-start.sh; --wipe also deletes its data.
set -uo pipefail
ROOT=${PBEMD_PG_DIR:-/tmp/pbemd-pg}
for d in /usr/lib/postgresql/*/bin; do
  if [ -x "$d/pg_ctl" ] && [ -d "$ROOT/data" ]; then
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$d/pg_ctl" -D "$ROOT/data" -m fast stop; else "$d/pg_ctl" -D "$ROOT/data" -m fast stop; fi
    break
  fi
done
[ "${1:-}" = "--wipe" ] && rm -rf "$ROOT"
exit 0
