#!/usr/bin/env bash
# A private, throwaway PostgreSQL cluster for the postgres store's tests (tests/.tmp/postgres).
#   scripts/postgres.sh start   installs Debian's postgresql when its server binaries are missing
#                               (as root), creates the cluster on first use and starts it listening
#                               on 127.0.0.1 only, with trust auth and a database cc_test; a no-op
#                               when it is already running. Exits non-zero with the reason when the
#                               server cannot start.
#   scripts/postgres.sh url     prints the connection string
#   scripts/postgres.sh stop    stops it (a no-op when it is not running)
# The port is 55432 unless CC_PG_PORT says otherwise. The server refuses to run as root, so as root
# the cluster belongs to the `postgres` OS user (created by the Debian package).
set -euo pipefail
cd "$(dirname "$0")/.."
port=${CC_PG_PORT:-55432}
db=cc_test
dir=$PWD/tests/.tmp/postgres
data=$dir/data
socket=$dir/socket
log=$dir/server.log
url="postgres://postgres@127.0.0.1:$port/$db"
say() { printf 'postgres.sh: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }
own() { [ "$(id -u)" != 0 ] || chown postgres: "$@"; }

# The newest installed server's binaries, or nothing.
find_bin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$d" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ] && [ -x "$d/postgres" ] && echo "$d"
  return 0
}

# Runs a server binary as the cluster's owner.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

running() { [ -f "$data/PG_VERSION" ] && as_owner "$bin/pg_ctl" status -D "$data" >/dev/null 2>&1; }

bin=$(find_bin)

case "${1:-}" in
  url)
    echo "$url"
    ;;

  stop)
    [ -n "$bin" ] || exit 0
    if running; then
      as_owner "$bin/pg_ctl" stop -D "$data" -m fast -w >/dev/null || fail "pg_ctl stop failed"
    fi
    ;;

  start)
    if [ -z "$bin" ]; then
      [ "$(id -u)" = 0 ] || fail "the PostgreSQL server is not installed (apt-get install postgresql as root)"
      command -v apt-get >/dev/null || fail "the PostgreSQL server is not installed and apt-get is missing"
      say "installing postgresql from Debian"
      apt-get update -qq || fail "apt-get update failed"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null \
        || fail "apt-get install postgresql failed"
      bin=$(find_bin)
      [ -n "$bin" ] || fail "no server binaries under /usr/lib/postgresql/*/bin after installing postgresql"
    fi
    if [ "$(id -u)" = 0 ]; then
      id postgres >/dev/null 2>&1 || fail "running as root and there is no postgres OS user to own the cluster"
    fi
    version=$(basename "$(dirname "$bin")")
    mkdir -p "$dir"
    own "$dir"

    if running; then
      # Already up: make sure it is ours on the expected port, then only ensure the database.
      as_owner "$bin/pg_isready" -q -t 15 -h 127.0.0.1 -p "$port" -d postgres \
        || fail "the cluster in $data runs but does not answer on 127.0.0.1:$port (stop it first)"
    else
      # A cluster of another major version cannot be started by these binaries: it is throwaway.
      if [ -f "$data/PG_VERSION" ] && [ "$(cat "$data/PG_VERSION")" != "${version%%.*}" ]; then
        rm -rf "$data"
      fi
      if [ ! -f "$data/PG_VERSION" ]; then
        rm -rf "$data"
        as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
          || fail "initdb failed: $(tail -n 5 "$dir/initdb.log")"
        echo "include_if_exists 'cc-test.conf'" >>"$data/postgresql.conf"
      fi
      mkdir -p "$socket"
      own "$socket"
      # Rewritten on each start so that CC_PG_PORT is honoured. Durability is not needed here.
      cat >"$data/cc-test.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$socket'
max_connections = 100
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
      own "$data/cc-test.conf"
      : >"$log"
      own "$log"
      out=$(as_owner "$bin/pg_ctl" start -D "$data" -l "$log" -w -t 30 2>&1) \
        || fail "the server did not start on 127.0.0.1:$port: $out
$(tail -n 5 "$log")"
    fi

    psql=("$bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres)
    exists=$("${psql[@]}" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'") \
      || fail "cannot connect to the server on 127.0.0.1:$port"
    if [ "$exists" != 1 ]; then
      # Another `start` may have created it meanwhile: only a still-missing database is an error.
      "${psql[@]}" -d postgres -c "CREATE DATABASE $db" >/dev/null 2>&1 \
        || [ "$("${psql[@]}" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'")" = 1 ] \
        || fail "cannot create the database $db"
    fi
    ;;

  *)
    echo "usage: $0 start|stop|url" >&2
    exit 2
    ;;
esac
