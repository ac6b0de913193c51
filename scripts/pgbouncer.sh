#!/usr/bin/env bash
# A PgBouncer of its own in front of the development PostgreSQL (127.0.0.1:5432, trust, user
# postgres), for the pooler tests (inbox-cluster-tests) and for trying Inbox through a pooler by
# hand. It pools one database of its own, test_pgbouncer, which the script creates; no other
# database is touched. Its files live under $INBOX_PGBOUNCER_DIR (default /tmp/inbox-pgbouncer).
#
#   scripts/pgbouncer.sh start        PgBouncer on 6432 (pool_mode=transaction) and on 6433
#                                     (pool_mode=session), two processes of one configuration each;
#                                     one that answers is left as it is
#   scripts/pgbouncer.sh url-tx       the JDBC URL through transaction pooling (prepareThreshold=0)
#   scripts/pgbouncer.sh url-session  the JDBC URL through session pooling
#   scripts/pgbouncer.sh url-direct   the JDBC URL of the same database without the pooler
#   scripts/pgbouncer.sh version      the installed PgBouncer's version
#   scripts/pgbouncer.sh stop         stops both (their files stay until the next start)
#
# Installs Debian's pgbouncer package where it is missing. PgBouncer refuses to run as root, so
# called as root it runs as the postgres OS user. Every failure ends the script with a message and
# a non-zero status.
set -euo pipefail

DIR=${INBOX_PGBOUNCER_DIR:-/tmp/inbox-pgbouncer}
TX_PORT=${INBOX_PGBOUNCER_TX_PORT:-6432}
SESSION_PORT=${INBOX_PGBOUNCER_SESSION_PORT:-6433}
PG_HOST=${INBOX_PGBOUNCER_PG_HOST:-127.0.0.1}
PG_PORT=${INBOX_PGBOUNCER_PG_PORT:-5432}
DB=test_pgbouncer
case "$DIR" in /*/*) ;; *) echo "pgbouncer: INBOX_PGBOUNCER_DIR=$DIR is no folder of its own" >&2; exit 1 ;; esac

fail() { echo "pgbouncer: $*" >&2; exit 1; }
say() { echo "pgbouncer: $*"; }

binary() {
  PGBOUNCER=$(command -v pgbouncer || true)
  [ -n "$PGBOUNCER" ] || PGBOUNCER=/usr/sbin/pgbouncer
  if [ ! -x "$PGBOUNCER" ]; then
    say "pgbouncer is not installed: installing Debian's pgbouncer package"
    command -v apt-get >/dev/null || fail "pgbouncer is not installed and apt-get is not here to install it"
    [ "$(id -u)" = 0 ] || fail "pgbouncer is not installed, and installing it needs root"
    DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || fail "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends pgbouncer >&2 \
      || fail "apt-get install pgbouncer failed"
    PGBOUNCER=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
    [ -x "$PGBOUNCER" ] || fail "pgbouncer installed, but no pgbouncer binary found"
    # The package starts a service of its own on 6432 where it can: that one is not ours.
    if command -v service >/dev/null; then service pgbouncer stop >/dev/null 2>&1 || true; fi
  fi
}

# Runs a command as the servers' owner (as_owner).
. "$(dirname "$0")/lib/as-postgres.sh"

psql_on() { # port, database, statement
  psql -X -q -h 127.0.0.1 -p "$1" -U postgres -d "$2" -tAc "$3"
}

answers() { # port: a query through it reaches the database
  [ "$(psql_on "$1" "$DB" "SELECT 1" 2>/dev/null)" = 1 ]
}

pid_of() { # mode: the pid in its pidfile, where that process runs
  local file="$DIR/$1.pid" pid
  [ -f "$file" ] || return 1
  pid=$(cat "$file")
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}

configure() { # mode, port
  as_owner tee "$DIR/$1.ini" >/dev/null <<EOF
[databases]
$DB = host=$PG_HOST port=$PG_PORT dbname=$DB user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $2
unix_socket_dir =
auth_type = trust
auth_file = $DIR/users.txt
pool_mode = $1
max_client_conn = 200
default_pool_size = 20
pidfile = $DIR/$1.pid
logfile = $DIR/$1.log
admin_users = postgres
ignore_startup_parameters = extra_float_digits,options
server_reset_query = DISCARD ALL
EOF
}

start_one() { # mode, port
  if pid_of "$1" >/dev/null && answers "$2"; then
    say "$1 pooling runs on $2"
    return 0
  fi
  if ss -ltn "( sport = :$2 )" 2>/dev/null | grep -q ":$2 "; then
    fail "port $2 is taken, and not by this script's pgbouncer: set INBOX_PGBOUNCER_*_PORT to free ports"
  fi
  configure "$1" "$2"
  as_owner "$PGBOUNCER" -d -q "$DIR/$1.ini" || fail "pgbouncer ($1) did not start: $(tail -n 5 "$DIR/$1.log" 2>/dev/null)"
  for _ in $(seq 1 100); do
    if answers "$2"; then say "$1 pooling on $2 in front of $PG_HOST:$PG_PORT/$DB"; return 0; fi
    sleep 0.1
  done
  fail "pgbouncer ($1) does not answer on $2 after 10 s: $(tail -n 5 "$DIR/$1.log" 2>/dev/null)"
}

start() {
  command -v psql >/dev/null || fail "psql is not installed (Debian's postgresql-client)"
  pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t 5 || fail "PostgreSQL at $PG_HOST:$PG_PORT does not answer"
  psql_on "$PG_PORT" postgres "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1 \
    || psql_on "$PG_PORT" postgres "CREATE DATABASE $DB" >/dev/null || fail "cannot create the database $DB"
  mkdir -p "$DIR"
  [ "$(id -u)" = 0 ] && chown postgres: "$DIR"
  as_owner tee "$DIR/users.txt" >/dev/null <<<'"postgres" ""'
  start_one transaction "$TX_PORT"
  start_one session "$SESSION_PORT"
}

stop_one() { # mode
  local pid
  pid=$(pid_of "$1") || return 0
  kill "$pid"
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  fail "pgbouncer ($1, pid $pid) did not stop within 10 s"
}

url() { # port, extra parameters
  echo "jdbc:postgresql://127.0.0.1:$1/$DB?user=postgres$2"
}

case "${1:-}" in
  start) binary; start ;;
  stop) stop_one transaction; stop_one session; say "stopped" ;;
  url-tx) url "$TX_PORT" "&prepareThreshold=0" ;;
  url-session) url "$SESSION_PORT" "" ;;
  url-direct) url "$PG_PORT" "" ;;
  version) binary; "$PGBOUNCER" --version | head -n 1 ;;
  *) fail "usage: $0 start|stop|url-tx|url-session|url-direct|version" ;;
esac
