#!/usr/bin/env bash
# Builds the book (docs/, mdBook) into target/book, installing mdBook from crates.io
# when it is missing; fails on any error mdBook reports. Read it with
#   scripts/book.sh && xdg-open target/book/index.html
set -euo pipefail
cd "$(dirname "$0")/.."
MDBOOK_VERSION=0.5.4
if ! command -v mdbook >/dev/null || ! mdbook --version | grep -q "v$MDBOOK_VERSION"; then
    echo "installing mdbook $MDBOOK_VERSION (cargo install, a few minutes)"
    # Without the `serve` and `watch` features: no web server or file watcher is needed
    # to build, and the install takes half the time.
    cargo install mdbook --version "$MDBOOK_VERSION" --locked --no-default-features \
        --features search
fi
export PATH="$HOME/.cargo/bin:$PATH"
# mdBook logs a broken page or include as an error but may still exit 0: a log line at
# ERROR fails the build here.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
mdbook build docs 2>&1 | tee "$log"
if grep -Eq '(^|[[:space:]])ERROR([[:space:]]|$)' "$log"; then
    echo "mdbook reported errors (above)" >&2
    exit 1
fi
echo "the book is in target/book/index.html"
