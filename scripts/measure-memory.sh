#!/usr/bin/env bash
# Resident size (VmRSS) of `pbemd run` on a fresh game (SQLite, Maildir in and out,
# `courier.mode: immediate`): sampled idle, then every 100 ms while a burst of envoys
# dropped into the inbox at once is handled (stored, classified, delivered into the
# outbox). Prints the idle maximum and the burst maximum in MB.
#
#   scripts/measure-memory.sh               # 10,000 envoys, 10 s idle
#   PBEMD_BURST=2000 IDLE_SECONDS=5 scripts/measure-memory.sh   # KEEP=1 keeps the game dir
#
# Needs the release binary (`cargo build --release --bin pbemd`; env PBEMD picks
# another), sqlite3 and jq. "Handled" is read from the game's database: every mail
# stored and past `new`, nothing queued for the courier, nothing pending in the outbox.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
PBEMD=${PBEMD:-$here/target/release/pbemd}
N=${PBEMD_BURST:-10000}
IDLE_SECONDS=${IDLE_SECONDS:-10}
TIMEOUT_SECONDS=${TIMEOUT_SECONDS:-1800}
[ -x "$PBEMD" ] || { echo "no $PBEMD: cargo build --release --bin pbemd" >&2; exit 2; }

work=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    if [ -n "${KEEP:-}" ]; then echo "kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# Envoys are only taken Monday 12:00 - Friday 23:59 game time, and `pbemd run` reads the
# real clock: the game's time zone is one of the fixed-offset Etc/GMT zones where it is
# now between Monday 13:00 and Friday 22:00.
zone=
for off in $(seq -14 12); do
    z=Etc/GMT$([ "$off" -ge 0 ] && echo "+$off" || echo "$off")
    t=$(TZ=$z date +%u%H%M)
    if ((10#$t >= 11300 && 10#$t <= 52200)); then zone=$z && break; fi
done
[ -n "$zone" ] || { echo "no time zone has the weekday window open now (weekend everywhere); try again in a few hours" >&2; exit 2; }

g=$work/g
"$PBEMD" new "$g" >/dev/null
cd "$g"
sed -i "s|^timezone: .*|timezone: $zone|" schedule.yaml
printf 'courier:\n  mode: immediate\n' >>pbemd.yaml
"$PBEMD" init --quiet >/dev/null
# Enough envoys for the burst: this measures memory, not the allowance rule.
"$PBEMD" state --json |
    jq --argjson n "$((N + 10))" \
        '(.realms[] | select(.name == "Genogien") | .positions.sprakror) = $n' >state.json
"$PBEMD" gm import-state state.json >/dev/null

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
q() { sqlite3 -cmd '.timeout 5000' pbemd.db "$1" 2>/dev/null || echo -1; }
handled() {
    [ "$(q "select count(*) from inbox where state <> 'new'")" = "$N" ] &&
        [ "$(q "select count(*) from messages where state = 'queued'")" = 0 ] &&
        [ "$(q "select count(*) from outbox where state = 'pending'")" = 0 ]
}

"$PBEMD" run 2>"$work/run.log" &
pid=$!
sleep 1
idle_max=0
for _ in $(seq $((IDLE_SECONDS * 10))); do
    r=$(rss_kb)
    ((r > idle_max)) && idle_max=$r
    sleep 0.1
done
echo "game time zone $zone ($(TZ=$zone date '+%a %H:%M'))"
echo "idle: max VmRSS $(mb "$idle_max") MB over ${IDLE_SECONDS} s"

# The burst: written to tmp/, then moved into new/ at once (Maildir delivery).
for i in $(seq "$N"); do
    printf 'From: genogien@game.test\r\nTo: sl@game.test\r\nSubject: Genogien skickar ett sändebud till Afani\r\nMessage-ID: <burst-%d-%d@players.test>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nSändebud nummer %d: vi föreslår handel med järn och timmer längs gränsen.\r\n' \
        "$i" "$$" "$i" >"inbox/tmp/burst-$i"
done
find inbox/tmp -name 'burst-*' -exec mv -t inbox/new {} +
start=$(date +%s.%N)
burst_max=0
ticks=0
while :; do
    kill -0 "$pid" 2>/dev/null || { echo "pbemd run died:" >&2; tail "$work/run.log" >&2; exit 1; }
    r=$(rss_kb)
    ((r > burst_max)) && burst_max=$r
    ticks=$((ticks + 1))
    if ((ticks % 10 == 0)) && handled; then break; fi
    if ((ticks > TIMEOUT_SECONDS * 10)); then echo "not handled within ${TIMEOUT_SECONDS} s" >&2; exit 1; fi
    sleep 0.1
done
secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
echo "burst: $N envoys handled in ${secs} s ($(ls outbox/new | wc -l) mails in the outbox), max VmRSS $(mb "$burst_max") MB"
echo "messages by state: $(q "select group_concat(s, ', ') from (select state || ' ' || count(*) as s from messages group by state)")"
echo "outbox by state: $(q "select group_concat(s, ', ') from (select state || ' ' || count(*) as s from outbox group by state)")"
echo "targets: idle ≤ 50 MB, burst ≤ 200 MB"
