#!/usr/bin/env bash
# A three-node MariaDB Galera Cluster on loopback ports of its own, for the Galera tests
# (inbox-cluster-tests) and for trying the engine on Galera by hand. The nodes live under
# $INBOX_GALERA_DIR (default /tmp/inbox-galera); no other server of the machine is touched (the
# development MariaDB on 3306 least of all: every command here names a node's own port or socket).
#
#   scripts/galera.sh start          three nodes (SQL ports 3311-3313) in one cluster, each ready, with
#                                    the database test; a cluster in that state is left as it is, a
#                                    node that is down is started, anything else is built afresh
#   scripts/galera.sh kill N         kill -9 of node N's server (an unplanned failure)
#   scripts/galera.sh start-node N   starts node N again: it rejoins by IST and is Synced on return
#   scripts/galera.sh status         each node's state, as wsrep reports it
#   scripts/galera.sh url            the JDBC URL that reaches the nodes in turn (sequential failover)
#   scripts/galera.sh stop           stops every node (their files stay until the next start)
#
# Runs the servers as the mysql OS user (an rsync state transfer run as root cannot write into the
# joiner's directory). Installs Debian's galera-4 and rsync where missing. Every failure ends the
# script with a message and a non-zero status.
set -euo pipefail

DIR=${INBOX_GALERA_DIR:-/tmp/inbox-galera}
DB=test
NODES=(1 2 3)
SQL_PORT=3310   # + N
GROUP_PORT=4570 # + N
IST_PORT=4580   # + N
SST_PORT=4590   # + N
PROVIDER=/usr/lib/galera/libgalera_smm.so
MARIADBD=/usr/sbin/mariadbd
case "$DIR" in /*/*) ;; *) echo "galera: INBOX_GALERA_DIR=$DIR is no folder of its own to build the cluster in" >&2; exit 1 ;; esac

fail() { echo "galera: $*" >&2; exit 1; }
say() { echo "galera: $*"; }

packages() {
  [ -x "$MARIADBD" ] || fail "$MARIADBD is not installed: the nodes run MariaDB's own server (apt-get install mariadb-server)"
  command -v mariadb-install-db >/dev/null || fail "mariadb-install-db is not installed (apt-get install mariadb-server)"
  if [ ! -f "$PROVIDER" ] || ! command -v rsync >/dev/null; then
    say "galera-4 or rsync is missing: installing them from Debian's packages"
    command -v apt-get >/dev/null || fail "galera-4 and rsync are not installed and apt-get is not here to install them"
    [ "$(id -u)" = 0 ] || fail "galera-4 and rsync are not installed, and installing them needs root"
    DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || fail "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q galera-4 rsync >&2 || fail "apt-get install galera-4 rsync failed"
    [ -f "$PROVIDER" ] || fail "galera-4 installed, but there is no $PROVIDER"
  fi
  id mysql >/dev/null 2>&1 || fail "there is no mysql user to run the nodes"
}

node_dir() { echo "$DIR/node$1"; }
port() { echo $((SQL_PORT + $1)); }
pid_of() { cat "$(node_dir "$1").pid" 2>/dev/null || true; }

as_mysql() {
  if [ "$(id -u)" = 0 ]; then runuser -u mysql -- "$@"; elif [ "$(id -un)" = mysql ]; then "$@"; else
    fail "the nodes run as the mysql user: call this script as root or as mysql"; fi
}

sql() { # node, statement: its values, or a failure
  mariadb --no-defaults --protocol=TCP -h 127.0.0.1 -P "$(port "$1")" -u root --connect-timeout=2 -N -B -e "$2" 2>/dev/null
}

wsrep() { # node, status variable: its value, or nothing where the node does not answer
  sql "$1" "SHOW GLOBAL STATUS LIKE '$2'" | cut -f2 || true
}

ready() { # node: in the cluster of three and ready for queries
  [ "$(wsrep "$1" wsrep_ready)" = ON ] && [ "$(wsrep "$1" wsrep_cluster_size)" = 3 ] \
    && [ "$(wsrep "$1" wsrep_local_state_comment)" = Synced ]
}

all_ready() { for n in "${NODES[@]}"; do ready "$n" || return 1; done; }

alive() { # pid: a process that runs (a killed server stays a zombie until its parent reaps it)
  local stat
  [ -n "$1" ] || return 1
  stat=$(ps -o stat= -p "$1" 2>/dev/null || true)
  [ -n "$stat" ] && [ "${stat#Z}" = "$stat" ]
}

running() { alive "$(pid_of "$1")"; }

port_free() { ! ss -ltn "( sport = :$1 )" 2>/dev/null | grep -q ":$1 "; }

wait_until() { # seconds, description, command...
  local seconds=$1 what=$2; shift 2
  for _ in $(seq 1 $((seconds * 5))); do
    if "$@"; then return 0; fi
    sleep 0.2
  done
  fail "$what did not happen within $seconds s (logs: $DIR/node*.err)"
}

config() { # node: its defaults file
  local n=$1 d peers
  d=$(node_dir "$n")
  peers=$(for m in "${NODES[@]}"; do printf '127.0.0.1:%s,' $((GROUP_PORT + m)); done)
  cat >"$d.cnf" <<EOF
[mariadbd]
user = mysql
datadir = $d
socket = $d.sock
pid-file = $d.pid
log-error = $d.err
port = $(port "$n")
bind-address = 127.0.0.1
skip-name-resolve
max_connections = 120
innodb_buffer_pool_size = 64M
innodb_log_file_size = 48M
# The nodes are killed, never the machine: a commit lives in the OS cache and on the other nodes.
innodb_flush_log_at_trx_commit = 0
binlog_format = ROW
innodb_autoinc_lock_mode = 2
wsrep_on = ON
wsrep_provider = $PROVIDER
wsrep_cluster_name = inbox_galera
wsrep_cluster_address = gcomm://${peers%,}
wsrep_node_name = node$n
wsrep_node_address = 127.0.0.1:$((GROUP_PORT + n))
# A killed node is given up in seconds (by default it is suspected after 5 s and dropped after 15), so
# that the others commit again, and the node restarted rejoins, soon after.
wsrep_provider_options = "gmcast.listen_addr=tcp://127.0.0.1:$((GROUP_PORT + n));ist.recv_addr=127.0.0.1:$((IST_PORT + n));gcache.size=256M;evs.keepalive_period=PT0.5S;evs.inactive_check_period=PT0.5S;evs.suspect_timeout=PT2S;evs.inactive_timeout=PT4S;evs.install_timeout=PT3S"
wsrep_sst_method = rsync
wsrep_sst_receive_address = 127.0.0.1:$((SST_PORT + n))
wsrep_slave_threads = 2
EOF
  chown mysql: "$d.cnf" 2>/dev/null || true
}

start_server() { # node, extra options...
  local n=$1; shift
  local d
  d=$(node_dir "$n")
  wait_until 30 "freeing node $n's ports" port_free "$(port "$n")"
  # Started apart from this shell, so that a node outlives the script, and logs to its .err file.
  as_mysql setsid "$MARIADBD" --defaults-file="$d.cnf" "$@" </dev/null >>"$d.out" 2>&1 &
}

joined() { # node: Synced and in a cluster of the nodes that run
  [ "$(wsrep "$1" wsrep_ready)" = ON ] && [ "$(wsrep "$1" wsrep_local_state_comment)" = Synced ]
}

build() {
  for n in "${NODES[@]}"; do stop_node "$n"; done
  for n in "${NODES[@]}"; do
    for p in $(port "$n") $((GROUP_PORT + n)) $((IST_PORT + n)) $((SST_PORT + n)); do
      port_free "$p" || fail "port $p is taken, and not by this cluster's nodes: free it first"
    done
  done
  say "building a fresh cluster under $DIR"
  rm -rf "$DIR"
  mkdir -p "$DIR"
  chown mysql: "$DIR"
  for n in "${NODES[@]}"; do
    config "$n"
  done
  # The first node alone gets system tables; the others receive everything by state transfer.
  as_mysql mariadb-install-db --defaults-file="$(node_dir 1).cnf" --auth-root-authentication-method=normal \
    --skip-test-db >"$DIR/install-db.log" 2>&1 || fail "mariadb-install-db failed: $(tail -n 5 "$DIR/install-db.log")"
  as_mysql mkdir -p "$(node_dir 2)" "$(node_dir 3)"
  start_server 1 --wsrep-new-cluster
  wait_until 60 "node 1 starting a new cluster" joined 1
  sql 1 "CREATE DATABASE IF NOT EXISTS $DB" || fail "cannot create the database $DB on node 1"
  for n in 2 3; do
    start_server "$n"
    wait_until 120 "node $n joining the cluster (state transfer)" joined "$n"
  done
}

start() {
  packages
  if all_ready; then
    say "the cluster runs: nodes on $(port 1)-$(port 3), size 3, every node Synced and ready"
    return 0
  fi
  local up=0
  for n in "${NODES[@]}"; do if running "$n" && joined "$n"; then up=$((up + 1)); fi; done
  if [ "$up" -gt 0 ]; then
    for n in "${NODES[@]}"; do running "$n" || start_node "$n"; done
  else
    build
  fi
  wait_until 60 "a cluster of 3 with every node ready" all_ready
  sql 1 "CREATE DATABASE IF NOT EXISTS $DB" || fail "cannot create the database $DB"
  say "nodes on $(port 1)-$(port 3), size 3, every node Synced and ready, database $DB"
}

check_node() { case "${1:-}" in 1|2|3) ;; *) fail "no node '${1:-}': nodes are 1, 2 and 3" ;; esac; }

kill_node() {
  check_node "$1"
  local pid
  pid=$(pid_of "$1")
  alive "$pid" || fail "node $1 does not run"
  kill -9 "$pid" || fail "kill -9 $pid failed"
  wait_until 30 "node $1's port closing" port_free "$(port "$1")"
  say "killed node $1 (pid $pid, port $(port "$1"))"
}

start_node() {
  check_node "$1"
  running "$1" && { say "node $1 runs"; return 0; }
  [ -f "$(node_dir "$1").cnf" ] || fail "node $1 was never built: run start"
  start_server "$1"
  wait_until 120 "node $1 rejoining the cluster" joined "$1"
  say "node $1 on $(port "$1") rejoined: $(wsrep "$1" wsrep_local_state_comment), cluster size $(wsrep "$1" wsrep_cluster_size)"
}

stop_node() {
  local pid
  pid=$(pid_of "$1")
  alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 300); do alive "$pid" || return 0; sleep 0.2; done
  fail "node $1 (pid $pid) did not stop within 60 s"
}

status() {
  for n in "${NODES[@]}"; do
    if running "$n"; then
      echo "node $n port $(port "$n"): $(wsrep "$n" wsrep_local_state_comment), ready $(wsrep "$n" wsrep_ready)," \
        "cluster size $(wsrep "$n" wsrep_cluster_size)"
    else
      echo "node $n port $(port "$n"): down"
    fi
  done
}

stop() {
  # The last node to stop keeps the cluster's newest state: stop the others first.
  for n in 3 2 1; do stop_node "$n"; done
  say "stopped"
}

case "${1:-}" in
  start) start ;;
  kill) kill_node "${2:-}" ;;
  start-node) packages; start_node "${2:-}" ;;
  status) status ;;
  url) echo "jdbc:mariadb:sequential://127.0.0.1:$(port 1),127.0.0.1:$(port 2),127.0.0.1:$(port 3)/$DB?user=root" ;;
  stop) stop ;;
  *) fail "usage: $0 start|stop|kill N|start-node N|status|url" ;;
esac
