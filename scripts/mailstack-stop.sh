#!/usr/bin/env bash
# Stop the loopback mail stack started by mailstack-start.sh (by PID file; idempotent).
# scripts/mailstack-stop.sh --wipe  also deletes all mailboxes, the queue and logs (fresh state next start).
set -uo pipefail
ROOT=${MAILSTACK_DIR:-/tmp/mailstack}

# alive PID: the process exists and is not a zombie (a master killed with -9 can linger as one).
# Reads /proc directly so it also works where procps (ps) is not installed.
alive() { local st; [ -n "$1" ] && read -r st 2>/dev/null < "/proc/$1/stat" || return 1; st=${st##*) }; [[ ${st%% *} != Z ]]; }
stop_pid() { # name pidfile
  local pid
  [ -s "$2" ] || return 0
  pid=$(tr -d ' \n' < "$2")
  if [ -n "$pid" ] && alive "$pid"; then
    kill -TERM "$pid"
    for _ in $(seq 1 100); do alive "$pid" || break; sleep 0.1; done
    alive "$pid" && { echo "$1 ($pid) did not stop, sending KILL" >&2; kill -KILL "$pid"; }
    echo "stopped $1 (pid $pid)"
  fi
  rm -f "$2"
}
# postfix master: TERM makes it stop its children and exit (same as 'postfix stop')
stop_pid postfix "$ROOT/spool/pid/master.pid"
stop_pid opendkim-sign "$ROOT/run/opendkim-sign.pid"
stop_pid opendkim-verify "$ROOT/run/opendkim-verify.pid"
stop_pid dovecot "$ROOT/run/dovecot/master.pid"

if [ "${1:-}" = "--wipe" ]; then
  rm -rf "$ROOT/mail" "$ROOT/spool" "$ROOT/run" "$ROOT/log"
  echo "wiped mail, queue, run state and logs under $ROOT"
fi
