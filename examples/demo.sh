#!/usr/bin/env bash
# The main job on the embedded default (no network, no API key): make a vault, sleep a
# conversation into it, recall from it, wake up mid-task, and show the memory in git.
set -euo pipefail
cd "$(dirname "$0")/.."
VAULT="${VAULT:-demo-vault}"
vault() { .venv/bin/vault "$@"; }
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

rm -rf "$VAULT"
step "vault init $VAULT"
vault init "$VAULT"
export SHERIFF_VAULT="$PWD/$VAULT"

step "vault watch   (a daemon holds the model, so every recall below is fast)"
vault watch
trap 'vault watch --stop >/dev/null 2>&1 || true' EXIT

step "vault sleep examples/conversation.jsonl   (three days of talk; the last 20 turns stay as the tail)"
vault sleep examples/conversation.jsonl --now 2026-02-20T03:31:00Z

step "vault sleep examples/transcript.md --final --explain   (four days later, a Markdown transcript; the session ends)"
# A later session continues the topics the first sleep wrote ("N updated"), and its correction
# (recall target 20 ms instead of 30 ms) strikes the old value; --explain says per turn why.
vault sleep examples/transcript.md --final --explain --now 2026-02-24T10:15:00Z

step "git show HEAD -- topics/   (the second sleep as a diff: updates to existing topics, the old value struck)"
git -C "$VAULT" --no-pager show --format='%h %s' HEAD -- topics/

step 'vault recall "what is Melanie bringing to Caroline'"'"'s party?"   (names and aliases lead to the topic)'
vault recall "what is Melanie bringing to Caroline's party?" --now 2026-02-24T10:10:00Z --budget 900

step 'vault recall "what is the party budget now?"   (one value: the current one first, the corrected one as history)'
vault recall "what is the party budget now?" --now 2026-02-24T10:10:00Z --budget 900

step 'vault recall "what is the recall latency target?"   (corrected in a later session: the new value first)'
vault recall "what is the recall latency target?" --now 2026-02-24T10:20:00Z --budget 700

step 'vault recall "what did we decide about the database last week?"   (a time window)'
vault recall "what did we decide about the database last week?" --now 2026-02-24T10:10:00Z --budget 900

step 'vault recall "the invoices index" --explain   (every signal of every score)'
vault recall "the invoices index" --now 2026-02-24T10:10:00Z --budget 600 --explain

step "vault wake   (15 minutes after the first sleep: it resumes the task it was in)"
vault wake --now 2026-02-20T03:45:00Z --budget 1800

step "vault doctor"
vault doctor

step "git log --stat   (every sleep is one commit: memory you can review as a diff)"
git -C "$VAULT" --no-pager log --stat --format='%n%h %ad%n    %s' --date=format:'%Y-%m-%d %H:%M'
