#!/usr/bin/env bash
# pbemd's own copy of the loopback mail stack used by the integration tests
# (Postfix SMTP -> LMTP -> Dovecot IMAP), started without systemd. Runs as root on a
# fresh Debian machine: installs dovecot-imapd dovecot-lmtpd postfix openssl opendkim
# opendkim-tools when missing.
# DKIM (tests/sender_auth_dkim.rs): players of the domain player.test submit on :2527, where
# an OpenDKIM signer (milter :8891) signs their mail and hands it to the game's inbound
# side :2526, where an OpenDKIM verifier (milter :8892, authserv-id mx.game.test, public
# key read from a file: no DNS) adds `Authentication-Results: mx.game.test; dkim=…` and
# removes any such header the mail brought along. :2525 stays as it was (no milter).
# Idempotent: re-running leaves running daemons alone (configs are rewritten, then reloaded).
# Env: MAILSTACK_DIR (default /tmp/mailstack), MAILSTACK_FSYNC (optimized|never, default never),
#      MAILSTACK_SMTP_AUTH (optional|required, default optional: AUTH PLAIN/LOGIN offered, not demanded)
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "mailstack-start.sh must run as root (installs packages, runs postfix/dovecot)" >&2; exit 1; }
ROOT=${MAILSTACK_DIR:-/tmp/mailstack}
FSYNC=${MAILSTACK_FSYNC:-never}
SMTP_AUTH=${MAILSTACK_SMTP_AUTH:-optional}
IMAP_PORT=1143 IMAPS_PORT=1993 SMTP_PORT=2525 SMTPS_PORT=4465 LMTP_PORT=2424 AUTH_PORT=2426
DKIM_IN_PORT=2526 DKIM_SUBMIT_PORT=2527 MILTER_SIGN_PORT=8891 MILTER_VERIFY_PORT=8892
DOMAIN=game.test PLAYER_DOMAIN=player.test AUTHSERV_ID=mx.game.test DKIM_SELECTOR=pbemd
# Every user's password is "<name>-pass" (test stack only).
USER_NAMES="gm sl genogien afani fugandri kaldor mirandel ostvik sldkim"
USERS=""; for n in $USER_NAMES; do USERS="$USERS $n:$n-pass"; done

# 1. packages (only if missing; needs root and apt)
if ! command -v dovecot >/dev/null || ! [ -x /usr/lib/dovecot/lmtp ] || ! command -v postfix >/dev/null \
   || ! command -v opendkim >/dev/null || ! command -v opendkim-genkey >/dev/null; then
  echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    dovecot-imapd dovecot-lmtpd postfix openssl opendkim opendkim-tools >/dev/null
fi
id vmail >/dev/null 2>&1 || useradd --system --user-group --no-create-home --shell /usr/sbin/nologin vmail
VUID=$(id -u vmail); VGID=$(id -g vmail)

# 2. directories, self-signed cert
mkdir -p "$ROOT"/{etc/postfix,etc/dkim,run,log,mail,spool,tls}
chown vmail:vmail "$ROOT/mail"
if [ ! -s "$ROOT/tls/cert.pem" ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=localhost" \
    -addext "subjectAltName=DNS:localhost,DNS:mail.$DOMAIN,IP:127.0.0.1" \
    -addext "basicConstraints=critical,CA:FALSE" -addext "extendedKeyUsage=serverAuth" \
    -keyout "$ROOT/tls/key.pem" -out "$ROOT/tls/cert.pem" 2>/dev/null
  chmod 600 "$ROOT/tls/key.pem"
fi

# 2b. OpenDKIM: the player domain's key pair, a signer and a verifier (no DNS: the verifier
# reads the public key from a file, TestPublicKeys).
DKIM="$ROOT/etc/dkim"
if [ ! -s "$DKIM/$DKIM_SELECTOR.private" ]; then
  opendkim-genkey -D "$DKIM" -d "$PLAYER_DOMAIN" -s "$DKIM_SELECTOR" -b 2048
  chmod 600 "$DKIM/$DKIM_SELECTOR.private"
fi
# Write stdin to file $1 only when it differs: a running OpenDKIM rereads its key files
# and fails its lookups while one is being rewritten, so a second run of this script
# (the stack already up) must leave them alone.
DKIM_CHANGED=0
put() {
  cat > "$1.new"
  if cmp -s "$1.new" "$1"; then rm -f "$1.new"; else mv "$1.new" "$1"; DKIM_CHANGED=1; fi
}
# The DNS record's text, its quoted pieces joined: "<selector>._domainkey.<domain> v=DKIM1; …"
echo "$DKIM_SELECTOR._domainkey.$PLAYER_DOMAIN $(grep -o '"[^"]*"' "$DKIM/$DKIM_SELECTOR.txt" | tr -d '"\n')" \
  | put "$DKIM/public-keys"
echo "$PLAYER_DOMAIN $PLAYER_DOMAIN:$DKIM_SELECTOR:$DKIM/$DKIM_SELECTOR.private" | put "$DKIM/keytable"
echo "*@$PLAYER_DOMAIN $PLAYER_DOMAIN" | put "$DKIM/signingtable"
put "$DKIM/sign.conf" <<EOF
Mode                s
Syslog              no
Background          yes
PidFile             $ROOT/run/opendkim-sign.pid
Socket              inet:$MILTER_SIGN_PORT@127.0.0.1
KeyTable            file:$DKIM/keytable
SigningTable        refile:$DKIM/signingtable
InternalHosts       csl:127.0.0.1
Canonicalization    relaxed/relaxed
# The stack lives under /tmp (world-writable), which OpenDKIM would call unsafe for a key.
RequireSafeKeys     no
EOF
# Verify only; 192.0.2.1 (TEST-NET) as the internal host, so mail from 127.0.0.1 is verified
# rather than skipped as "ours to sign".
put "$DKIM/verify.conf" <<EOF
Mode                v
Syslog              no
Background          yes
PidFile             $ROOT/run/opendkim-verify.pid
Socket              inet:$MILTER_VERIFY_PORT@127.0.0.1
AuthservID          $AUTHSERV_ID
TestPublicKeys      $DKIM/public-keys
InternalHosts       csl:192.0.2.1
AlwaysAddARHeader   yes
RemoveARAll         yes
RemoveARFrom        csl:$AUTHSERV_ID
EOF

# 3. Dovecot: users file + config
: > "$ROOT/etc/users.new"
for u in $USERS; do echo "${u%%:*}@$DOMAIN:{PLAIN}${u#*:}::::::" >> "$ROOT/etc/users.new"; done
mv "$ROOT/etc/users.new" "$ROOT/etc/users"
cat > "$ROOT/etc/dovecot.conf" <<EOF
base_dir = $ROOT/run/dovecot
state_dir = $ROOT/run/dovecot-state
instance_name = mailstack
protocols = imap lmtp
listen = 127.0.0.1
log_path = $ROOT/log/dovecot.log
ssl = yes
ssl_cert = <$ROOT/tls/cert.pem
ssl_key = <$ROOT/tls/key.pem
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = $VUID
mail_uid = $VUID
mail_gid = $VGID
mail_location = maildir:$ROOT/mail/%d/%n/Maildir
mail_fsync = $FSYNC
mailbox_idle_check_interval = 1 secs
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%Lu $ROOT/etc/users
}
userdb {
  driver = passwd-file
  args = username_format=%Lu $ROOT/etc/users
  default_fields = uid=$VUID gid=$VGID home=$ROOT/mail/%d/%n
}
namespace inbox {
  inbox = yes
}
service imap-login {
  inet_listener imap {
    port = $IMAP_PORT
  }
  inet_listener imaps {
    port = $IMAPS_PORT
    ssl = yes
  }
}
service auth {
  inet_listener {
    address = 127.0.0.1
    port = $AUTH_PORT
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = $LMTP_PORT
  }
}
protocol lmtp {
  postmaster_address = postmaster@$DOMAIN
}
EOF

# 4. Postfix: own config dir + own queue dir, logs to a file (no syslog needed)
: > "$ROOT/etc/postfix/vmailbox"
for u in $USERS; do echo "${u%%:*}@$DOMAIN OK" >> "$ROOT/etc/postfix/vmailbox"; done
cat > "$ROOT/etc/postfix/main.cf" <<EOF
compatibility_level = 3.6
queue_directory = $ROOT/spool
data_directory = $ROOT/spool/data
maillog_file = $ROOT/log/postfix.log
maillog_file_prefixes = $ROOT/log
myhostname = mail.$DOMAIN
mydomain = $DOMAIN
myorigin = \$mydomain
mydestination =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
smtpd_relay_restrictions = reject_unauth_destination
default_transport = error:no delivery outside $DOMAIN in the test stack
virtual_mailbox_domains = $DOMAIN
virtual_mailbox_maps = texthash:$ROOT/etc/postfix/vmailbox
virtual_transport = lmtp:inet:127.0.0.1:$LMTP_PORT
lmtp_host_lookup = native
smtp_host_lookup = native
smtpd_tls_security_level = may
smtpd_tls_cert_file = $ROOT/tls/cert.pem
smtpd_tls_key_file = $ROOT/tls/key.pem
smtpd_sasl_auth_enable = yes
smtpd_sasl_type = dovecot
smtpd_sasl_path = inet:127.0.0.1:$AUTH_PORT
smtpd_client_restrictions = $( [ "$SMTP_AUTH" = required ] && echo "permit_sasl_authenticated, reject" )
message_size_limit = 52428800
biff = no
alias_maps =
alias_database =
local_recipient_maps =
EOF
cat > "$ROOT/etc/postfix/master.cf" <<EOF
127.0.0.1:$SMTP_PORT  inet n - n - - smtpd
127.0.0.1:$SMTPS_PORT inet n - n - - smtpd -o smtpd_tls_wrappermode=yes
pickup    unix n - n 60 1 pickup
cleanup   unix n - n - 0 cleanup
qmgr      unix n - n 300 1 qmgr
tlsmgr    unix - - n 1000? 1 tlsmgr
rewrite   unix - - n - - trivial-rewrite
bounce    unix - - n - 0 bounce
defer     unix - - n - 0 bounce
trace     unix - - n - 0 bounce
verify    unix - - n - 1 verify
flush     unix n - n 1000? 0 flush
proxymap  unix - - n - - proxymap
smtp      unix - - n - - smtp
relay     unix - - n - - smtp
showq     unix n - n - - showq
error     unix - - n - - error
retry     unix - - n - - error
discard   unix - - n - - discard
lmtp      unix - - n - - lmtp
anvil     unix - - n - 1 anvil
scache    unix - - n - 1 scache
postlog   unix-dgram n - n - 1 postlogd
127.0.0.1:$DKIM_IN_PORT inet n - n - - smtpd
  -o myhostname=$AUTHSERV_ID
  -o smtpd_milters=inet:127.0.0.1:$MILTER_VERIFY_PORT
  -o milter_default_action=tempfail
127.0.0.1:$DKIM_SUBMIT_PORT inet n - n - - smtpd
  -o smtpd_milters=inet:127.0.0.1:$MILTER_SIGN_PORT
  -o milter_default_action=tempfail
  -o content_filter=smtp:[127.0.0.1]:$DKIM_IN_PORT
EOF

# 5. start (or reload) daemons.
# alive PID: the process exists and is not a zombie (a master killed with -9 can linger as one).
# Reads /proc directly so it also works where procps (ps) is not installed.
alive() { local st; [ -n "$1" ] && read -r st 2>/dev/null < "/proc/$1/stat" || return 1; st=${st##*) }; [[ ${st%% *} != Z ]]; }
DPID="$ROOT/run/dovecot/master.pid"
if [ -s "$DPID" ] && alive "$(cat "$DPID")"; then
  dovecot -c "$ROOT/etc/dovecot.conf" reload
else
  rm -f "$DPID"   # stale (dead or zombie) pid would make dovecot refuse to start
  # Dovecot's master keeps the stderr it was started with: if that is the caller's pipe
  # (`mailstack-start.sh | tail`, a test harness capturing output) the reader never sees EOF
  # and hangs. Give it a log file instead, and show that file when the start fails.
  dovecot -c "$ROOT/etc/dovecot.conf" </dev/null >"$ROOT/log/dovecot-start.log" 2>&1 \
    || { cat "$ROOT/log/dovecot-start.log" >&2; exit 1; }
fi
for role in sign verify; do
  pid="$ROOT/run/opendkim-$role.pid"
  # A running milter is left alone unless its files changed; then it is restarted (its
  # reload on USR1 loses the test keys).
  if [ -s "$pid" ] && alive "$(tr -d ' \n' < "$pid")" && [ "$DKIM_CHANGED" = 1 ]; then
    old="$(tr -d ' \n' < "$pid")"; kill "$old"
    for i in $(seq 1 50); do alive "$old" || break; sleep 0.1; done
  fi
  if ! { [ -s "$pid" ] && alive "$(tr -d ' \n' < "$pid")"; }; then
    rm -f "$pid"
    opendkim -x "$DKIM/$role.conf" </dev/null >"$ROOT/log/opendkim-$role.log" 2>&1 \
      || { cat "$ROOT/log/opendkim-$role.log" >&2; exit 1; }
  fi
done
PF="postfix -c $ROOT/etc/postfix"
# 'postfix start' fails silently when stderr is not a tty: on failure rerun under script(1) to show why.
if $PF status >/dev/null 2>&1; then $PF reload >/dev/null 2>&1
else $PF start </dev/null >/dev/null 2>&1 || { script -qc "$PF start" /dev/null </dev/null >&2; exit 1; }; fi

# 6. wait until every port accepts connections
for p in $IMAP_PORT $IMAPS_PORT $LMTP_PORT $AUTH_PORT $SMTP_PORT $SMTPS_PORT \
         $MILTER_SIGN_PORT $MILTER_VERIFY_PORT $DKIM_IN_PORT $DKIM_SUBMIT_PORT; do
  for i in $(seq 1 100); do
    (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && break
    [ "$i" = 100 ] && { echo "port $p not listening; see $ROOT/log" >&2; exit 1; }
    sleep 0.1
  done
done
echo "mailstack up: IMAP 127.0.0.1:$IMAP_PORT (STARTTLS) IMAPS :$IMAPS_PORT SMTP :$SMTP_PORT (STARTTLS) SMTPS :$SMTPS_PORT; DKIM: submit :$DKIM_SUBMIT_PORT (signs $PLAYER_DOMAIN) -> inbound :$DKIM_IN_PORT (verifies, $AUTHSERV_ID); dovecot pid $(cat "$DPID"), postfix master pid $(cat "$ROOT/spool/pid/master.pid" | tr -d ' ')"
