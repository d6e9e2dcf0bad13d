#!/usr/bin/env bash
# Every test of pbemd, on a fresh machine too: starts (installing when missing) the
# loopback mail stack (Postfix + Dovecot), a throwaway PostgreSQL and headless Chromium,
# builds the book (mdBook, installed from crates.io when missing), then runs the whole
# test suite against them. Needs root for the installs (apt-get).
#   scripts/test.sh              # all tests
#   scripts/test.sh store        # extra arguments go to `cargo test`
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== mail stack (Postfix SMTP :2525, Dovecot IMAP :1143) =="
scripts/mailstack-start.sh
echo "== PostgreSQL (:55432) =="
PBEMD_TEST_PG_URL=$(scripts/pg-start.sh | tail -n 1)
export PBEMD_TEST_PG_URL
export PBEMD_MAILSTACK_DIR=${MAILSTACK_DIR:-/tmp/mailstack}
echo "== headless Chromium and fonts (browser tests, map pictures) =="
scripts/browser-start.sh

echo "== the book (mdbook build docs) =="
scripts/book.sh

echo "== cargo test =="
cargo test --locked "$@"
