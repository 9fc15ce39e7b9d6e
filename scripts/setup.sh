#!/usr/bin/env bash
# Installs what building and testing Lastset needs on Debian 12, skipping what is already there:
# the C libraries (libmodbus, libmicrohttpd, nettle, SQLite, cairo and pango with the DejaVu fonts for certificates' PDFs), the test peers' tools (socat, mbpoll, poppler-utils' pdftotext reading certificates back, strace for the fsync counts, systemd-analyze, openssl for TLS certificates,
# Debian's chromium + chromium-driver for the console's browser tests: no browser is ever downloaded; util-linux's
# setpriv, unshare and flock — dropped capabilities and user/network namespaces in the tests, the lock of land.sh and
# setup-venv.sh — and mount's mount/umount for the full-disk tmpfs test, named although most images carry them)
# and the pinned Python virtual environment of the pymodbus test peer (<repo>/.venv).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

packages=(pkg-config libmodbus-dev libmicrohttpd-dev nettle-dev libsqlite3-dev sqlite3 libcairo2-dev libpango1.0-dev fonts-dejavu-core poppler-utils socat mbpoll strace systemd python3-venv curl bsdutils util-linux mount openssl git openssh-client openssh-server chromium chromium-driver)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "setup: swift not on PATH (the Swift 6 toolchain is expected at /opt/swift)" >&2; exit 1; }
"$root/Tests/peers/setup-venv.sh"
