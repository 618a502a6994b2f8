#!/usr/bin/env bash
# Sourced by the local Slurm scripts: wait_for SECONDS WHAT COMMAND... polls
# COMMAND every half second until it succeeds, or says what it timed out
# waiting for and fails.
wait_for() { # wait_for SECONDS WHAT COMMAND...: polls COMMAND until it succeeds
    local deadline=$((SECONDS + $1)) what=$2
    shift 2
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || { echo "timed out waiting for $what" >&2; return 1; }
        sleep 0.5
    done
}
