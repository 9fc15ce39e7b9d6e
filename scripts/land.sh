#!/usr/bin/env bash
# Lands the current branch of a worktree on main: rebase onto main, run the README's test command
# (make test), fast-forward main. One landing at a time (a lock shared by every worktree), so the suite
# never runs twice at once on this machine and main only ever moves to a commit whose suite passed.
#
#   scripts/land.sh            from a worktree whose branch holds committed work
#   LAND_QUICK=1 scripts/land.sh   build + swift test only (no systemd checks), for docs-only or test-only fixes
set -euo pipefail
here="$(git rev-parse --show-toplevel)"
branch="$(git -C "$here" rev-parse --abbrev-ref HEAD)"
[[ "$branch" != "main" && "$branch" != "HEAD" ]] || { echo "land: run from a worktree on its own branch (not main)" >&2; exit 64; }
[[ -z "$(git -C "$here" status --porcelain --untracked-files=no)" ]] || { echo "land: commit or stash first (git status)" >&2; exit 1; }
main_tree="$(git -C "$here" worktree list --porcelain | awk '/^worktree /{w=$2} /^branch refs\/heads\/main$/{print w}')"
[[ -n "$main_tree" ]] || { echo "land: no worktree has main checked out" >&2; exit 1; }

exec 9>/tmp/lastset-land.lock
echo "land: waiting for the landing lock…" >&2
flock 9
echo "land: rebasing $branch onto main" >&2
git -C "$here" rebase main
cd "$here"
export PATH="/opt/swift/usr/bin:$PATH"
# The suite runs without the lock's descriptor: a test process left behind by a crash must not hold every later
# landing up.
if [[ "${LAND_QUICK:-}" == 1 ]]; then
    swift build --build-tests 9>&-
    timeout --kill-after=30 1200 swift test 9>&-
else
    make test 9>&-
fi
[[ -z "$(git -C "$main_tree" status --porcelain --untracked-files=no)" ]] || { echo "land: $main_tree has uncommitted changes; not moving main" >&2; exit 1; }
git -C "$main_tree" merge --ff-only "$branch"
echo "land: main is now $(git -C "$main_tree" rev-parse --short HEAD)" >&2
