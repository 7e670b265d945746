#!/bin/bash
# Verifier: the hidden integration tests under `cargo test`, whose libtest JUnit formatter writes
# the report read for F2P/P2P (ids: the test names; the formatter is unstable in Rust 1.63, hence
# RUSTC_BOOTSTRAP=1). The crate is copied out of /app and its manifest replaced by the task's,
# with no build script, tests or benches of the work, so nothing the work adds runs around the
# hidden tests. Offline: the crate has no dependencies.
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
work=$(mktemp -d /tmp/verify.XXXXXX) || exit 1
cp -r /app/. "$work/" && cd "$work" || exit 1
rm -rf .git .cargo target tests benches examples build.rs Cargo.lock rust-toolchain rust-toolchain.toml
mkdir tests && cp /tests/Cargo.toml Cargo.toml && cp /tests/hidden.rs tests/hidden.rs || exit 1
export CARGO_HOME="$work/.cargo-home" CARGO_TARGET_DIR="$work/target" CARGO_NET_OFFLINE=true \
    HOME="$work" RUSTC_BOOTSTRAP=1 CARGO_INCREMENTAL=0 \
    CARGO_PROFILE_DEV_DEBUG=0
cargo test --offline --quiet --test hidden -- -Z unstable-options --format junit --test-threads 1 \
    > "$work/junit.xml"
status=$?
cp "$work/junit.xml" /logs/verifier/junit.xml
if [ $status -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; fi
