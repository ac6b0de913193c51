# Sourced by the scripts that run PostgreSQL's servers and poolers, which refuse root: as_owner
# runs a command as the postgres OS user when called as root, else as the caller. Needs fail().
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || fail "running as root, and there is no postgres user to run the servers"
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}
