#!/usr/bin/env bash
# A PostgreSQL primary and its synchronous streaming standby, on loopback ports of their own, for the
# failover tests (inbox-cluster-tests) and for trying a failover by hand. Both clusters live under
# $INBOX_PG_PAIR_DIR (default /tmp/inbox-pg-pair); no other cluster of the machine is touched.
#
#   scripts/pg-pair.sh start         a primary on 5434 and a standby on 5435 that streams from it,
#                                    synchronously (a commit returns once the standby has it); a pair
#                                    in that state is left as it is, anything else is built afresh
#   scripts/pg-pair.sh kill-primary  kill -9 of the primary's postmaster (an unplanned failure)
#   scripts/pg-pair.sh stop-primary  a clean stop of the primary (the first half of a switchover)
#   scripts/pg-pair.sh promote       promotes the standby and lets it commit alone
#   scripts/pg-pair.sh switchover    stops the primary cleanly, then promotes the standby (planned)
#   scripts/pg-pair.sh status        each node's role and the standby's replication state
#   scripts/pg-pair.sh url           the JDBC URL that reaches whichever node is the primary
#   scripts/pg-pair.sh stop          stops both clusters (their files stay until the next start)
#
# Runs the servers as the postgres OS user when called as root (PostgreSQL refuses root), else as
# the caller. Installs Debian's postgresql package where no PostgreSQL binaries are installed.
# Every failure ends the script with a message and a non-zero status.
set -euo pipefail

DIR=${INBOX_PG_PAIR_DIR:-/tmp/inbox-pg-pair}
PRIMARY_PORT=${INBOX_PG_PAIR_PRIMARY_PORT:-5434}
STANDBY_PORT=${INBOX_PG_PAIR_STANDBY_PORT:-5435}
DB=test
# The standby's name in primary_conninfo, which synchronous_standby_names waits for.
STANDBY_NAME=inbox_standby
case "$DIR" in /*/*) ;; *) echo "pg-pair: INBOX_PG_PAIR_DIR=$DIR is no folder of its own to build the pair in" >&2; exit 1 ;; esac
A=$DIR/a # first on PRIMARY_PORT
B=$DIR/b # first on STANDBY_PORT

fail() { echo "pg-pair: $*" >&2; exit 1; }
say() { echo "pg-pair: $*"; }

binaries() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    say "no PostgreSQL binaries under /usr/lib/postgresql: installing Debian's postgresql package"
    command -v apt-get >/dev/null || fail "PostgreSQL is not installed and apt-get is not here to install it"
    [ "$(id -u)" = 0 ] || fail "PostgreSQL is not installed, and installing it needs root"
    DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || fail "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2 || fail "apt-get install postgresql failed"
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    [ -n "$bin" ] && [ -x "$bin/initdb" ] || fail "postgresql installed, but no initdb under /usr/lib/postgresql"
  fi
  PGBIN=$bin
}

# Runs a command as the servers' owner (as_owner).
. "$(dirname "$0")/lib/as-postgres.sh"

sql() { # port, statement: one value, or a failure
  "$PGBIN/psql" -X -q -h 127.0.0.1 -p "$1" -U postgres -d postgres -tAc "$2"
}

answers() { "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$1" -t 1 >/dev/null 2>&1; }

role() { # port: primary, standby or down
  local r
  r=$(sql "$1" "SELECT CASE WHEN pg_is_in_recovery() THEN 'standby' ELSE 'primary' END" 2>/dev/null) || r=down
  echo "${r:-down}"
}

port_of() { if [ "$1" = "$A" ]; then echo "$PRIMARY_PORT"; else echo "$STANDBY_PORT"; fi; }

# The node (directory) whose server has a role now (primary or standby), or nothing.
node() {
  local d
  for d in "$A" "$B"; do
    [ -f "$d/postgresql.auto.conf" ] || continue
    if [ "$(role "$(port_of "$d")")" = "$1" ]; then echo "$d"; return 0; fi
  done
}

streaming() { # true when the primary on PRIMARY_PORT has its standby streaming synchronously
  [ "$(sql "$PRIMARY_PORT" "SELECT count(*) FROM pg_stat_replication WHERE application_name = '$STANDBY_NAME'
        AND state = 'streaming' AND sync_state = 'sync'" 2>/dev/null)" = 1 ]
}

wait_until() { # seconds, description, command...
  local seconds=$1 what=$2; shift 2
  for _ in $(seq 1 $((seconds * 10))); do
    if "$@"; then return 0; fi
    sleep 0.1
  done
  fail "$what did not happen within $seconds s (logs: $DIR/*.log)"
}

alive() { # pid: a process that runs (a killed postmaster stays a zombie until its parent reaps it)
  local stat
  stat=$(ps -o stat= -p "$1" 2>/dev/null || true)
  [ -n "$stat" ] && [ "${stat#Z}" = "$stat" ]
}

stop_node() { # directory: stops its server, if one runs
  if [ -f "$1/postmaster.pid" ] && alive "$(head -n 1 "$1/postmaster.pid")"; then
    as_owner "$PGBIN/pg_ctl" -D "$1" -m fast -w -t 60 stop >/dev/null || fail "$1 did not stop"
  fi
}

start_node() { # directory
  as_owner "$PGBIN/pg_ctl" -D "$1" -l "$1.log" -w -t 60 start >/dev/null \
    || fail "the server in $1 did not start: $(tail -n 5 "$1.log" 2>/dev/null)"
}

# A process left from a killed postmaster still holds its port for a moment: wait it out.
port_free() { ! answers "$1" && ! ss -ltn "( sport = :$1 )" 2>/dev/null | grep -q ":$1"; }

start() {
  if [ "$(role "$PRIMARY_PORT")" = primary ] && [ "$(role "$STANDBY_PORT")" = standby ] && streaming; then
    say "the pair runs: primary on $PRIMARY_PORT, standby on $STANDBY_PORT, streaming synchronously"
    return 0
  fi
  for port in "$PRIMARY_PORT" "$STANDBY_PORT"; do
    # Something of another owner on a port of the pair: never touch it.
    if answers "$port" && ! { [ -f "$A/postmaster.pid" ] || [ -f "$B/postmaster.pid" ]; }; then
      fail "port $port answers, and it is not this pair's server: set INBOX_PG_PAIR_*_PORT to free ports"
    fi
  done
  stop_node "$A"
  stop_node "$B"
  wait_until 30 "freeing ports $PRIMARY_PORT and $STANDBY_PORT" port_free "$PRIMARY_PORT"
  wait_until 30 "freeing port $STANDBY_PORT" port_free "$STANDBY_PORT"
  say "building a fresh pair under $DIR"
  rm -rf "$DIR"
  mkdir -p "$DIR"
  [ "$(id -u)" = 0 ] && chown postgres: "$DIR"
  as_owner "$PGBIN/initdb" -D "$A" -U postgres --auth=trust -E UTF8 --no-instructions --no-sync >"$DIR/initdb.log" 2>&1 \
    || fail "initdb failed: $(tail -n 5 "$DIR/initdb.log")"
  as_owner tee -a "$A/postgresql.auto.conf" >/dev/null <<EOF
port = $PRIMARY_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR'
wal_level = replica
max_wal_senders = 4
wal_keep_size = '256MB'
max_connections = 100
shared_buffers = '32MB'
# A killed process leaves its writes in the OS cache, so what these servers are for (a postmaster
# killed, never the machine) loses nothing without fsync, and the shared machine's disk is spared.
fsync = off
EOF
  as_owner tee -a "$A/pg_hba.conf" >/dev/null <<EOF
host replication postgres 127.0.0.1/32 trust
host all all 127.0.0.1/32 trust
EOF
  start_node "$A"
  sql "$PRIMARY_PORT" "CREATE DATABASE $DB" >/dev/null || fail "cannot create the database $DB"
  as_owner "$PGBIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$B" -R -X stream -c fast \
    >"$DIR/basebackup.log" 2>&1 || fail "pg_basebackup failed: $(tail -n 5 "$DIR/basebackup.log")"
  as_owner tee -a "$B/postgresql.auto.conf" >/dev/null <<EOF
port = $STANDBY_PORT
primary_conninfo = 'host=127.0.0.1 port=$PRIMARY_PORT user=postgres application_name=$STANDBY_NAME'
EOF
  start_node "$B"
  # Synchronous from now on: a commit returns once the standby has flushed it, so a promoted
  # standby has every commit a client saw succeed.
  sql "$PRIMARY_PORT" "ALTER SYSTEM SET synchronous_standby_names = '$STANDBY_NAME'" >/dev/null
  sql "$PRIMARY_PORT" "SELECT pg_reload_conf()" >/dev/null
  wait_until 60 "the standby streaming synchronously from the primary" streaming
  say "primary on $PRIMARY_PORT, standby on $STANDBY_PORT, streaming synchronously"
}

kill_primary() {
  local d pid
  d=$(node primary)
  [ -n "$d" ] || fail "no primary runs"
  pid=$(head -n 1 "$d/postmaster.pid")
  kill -9 "$pid" || fail "kill -9 $pid failed"
  wait_until 30 "the killed primary's port closing" port_free "$(port_of "$d")"
  say "killed the primary's postmaster (pid $pid, port $(port_of "$d"))"
}

promote() {
  local d port
  d=$(node standby)
  [ -n "$d" ] || fail "no standby runs"
  port=$(port_of "$d")
  as_owner "$PGBIN/pg_ctl" -D "$d" -w -t 60 promote >/dev/null || fail "pg_ctl promote of $d failed"
  wait_until 60 "the standby on $port leaving recovery" test "$(role "$port")" = primary
  # The standby copied the primary's wish for a synchronous standby; alone, every commit would wait for it.
  sql "$port" "ALTER SYSTEM RESET synchronous_standby_names" >/dev/null
  sql "$port" "SELECT pg_reload_conf()" >/dev/null
  say "promoted the standby on $port: it is the primary"
}

stop_primary() {
  local d
  d=$(node primary)
  [ -n "$d" ] || fail "no primary runs"
  [ -n "$(node standby)" ] || fail "no standby runs to take over"
  # A clean stop sends the standby every WAL record, the shutdown checkpoint included.
  stop_node "$d"
  say "stopped the primary on $(port_of "$d") cleanly"
}

status() {
  binaries
  local d
  for d in "$A" "$B"; do
    [ -f "$d/postgresql.auto.conf" ] || continue
    echo "$d port $(port_of "$d"): $(role "$(port_of "$d")")"
  done
  d=$(node primary)
  if [ -n "$d" ]; then
    sql "$(port_of "$d")" "SELECT 'replication: ' || application_name || ' ' || state || ' ' || sync_state
        FROM pg_stat_replication" || true
  fi
}

stop() {
  stop_node "$A"
  stop_node "$B"
  say "stopped"
}

case "${1:-}" in
  start) binaries; start ;;
  kill-primary) binaries; kill_primary ;;
  promote) binaries; promote ;;
  stop-primary) binaries; stop_primary ;;
  switchover) binaries; stop_primary; promote ;;
  status) status ;;
  url) echo "jdbc:postgresql://127.0.0.1:$PRIMARY_PORT,127.0.0.1:$STANDBY_PORT/$DB?user=postgres&targetServerType=primary" ;;
  stop) binaries; stop ;;
  *) fail "usage: $0 start|kill-primary|stop-primary|promote|switchover|status|url|stop" ;;
esac
