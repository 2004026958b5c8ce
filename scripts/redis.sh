#!/usr/bin/env bash
# A private redis-server for the redis store's tests (tests/js/stores/redis.test.mjs).
#   scripts/redis.sh start  installs Debian's redis-server when missing (as root), then starts a
#                           server on 127.0.0.1:$CC_REDIS_PORT (default 56379), daemonized, its
#                           pidfile, data and log under tests/.tmp/redis, with an fsync'd
#                           append-only file (appendfsync always) and no RDB snapshots; waits
#                           until it answers PING. Idempotent: quick when it already runs.
#   scripts/redis.sh stop   shuts it down; a no-op when it is not running.
#   scripts/redis.sh url    prints its URL (redis://127.0.0.1:56379).
# Exits non-zero, with the reason, when the server cannot start: the tests fail, never skip.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${CC_REDIS_PORT:-56379}
dir=$PWD/tests/.tmp/redis
pidfile=$dir/redis-$port.pid
logfile=$dir/redis-$port.log
say() { printf 'redis.sh: %s\n' "$*" >&2; }

ping() { timeout 1 redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -qx PONG; }
# Whether process $1 runs (a zombie that init has not reaped yet does not).
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  [ -r "/proc/$1/stat" ] || return 0
  [ "$(sed 's/^.*) //' "/proc/$1/stat" | cut -c1)" != Z ]
}
# The pid of the server this script started, when it still runs.
our_pid() {
  [ -f "$pidfile" ] || return 1
  local pid
  pid=$(cat "$pidfile")
  [ -n "$pid" ] && alive "$pid" && echo "$pid"
}

install() {
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null && return 0
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    say "redis-server is not installed (Debian/Ubuntu: sudo apt-get install redis-server)"
    exit 1
  fi
  say "installing redis-server from Debian"
  apt-get update -qq
  # The package's own service (port 6379, data in /var/lib/redis) is not used: where a
  # policy-rc.d forbids starting services it stays stopped.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null
  command -v redis-server >/dev/null || { say "apt-get did not install redis-server"; exit 1; }
}

start() {
  install
  if our_pid >/dev/null && ping; then return 0; fi
  if ping; then
    say "another server answers on 127.0.0.1:$port (not ours: $pidfile); stop it or set CC_REDIS_PORT"
    exit 1
  fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    say "127.0.0.1:$port is taken by something that is not a redis server; set CC_REDIS_PORT"
    exit 1
  fi
  mkdir -p "$dir"
  rm -f "$pidfile"
  # Loopback only, no RDB snapshots, every write fsync'd to the append-only file before the reply.
  redis-server --port "$port" --bind 127.0.0.1 --protected-mode yes \
    --daemonize yes --pidfile "$pidfile" --dir "$dir" --logfile "$logfile" \
    --appendonly yes --appenddirname "appendonly-$port" --appendfsync always --save "" || {
    say "redis-server failed to start; its log: $logfile"
    tail -n 20 "$logfile" >&2 2>/dev/null || true
    exit 1
  }
  local deadline=$((SECONDS + 10))
  while [ "$SECONDS" -lt "$deadline" ]; do
    ping && return 0
    sleep 0.1
  done
  say "redis-server does not answer PING on 127.0.0.1:$port after 10 s; its log ($logfile):"
  tail -n 20 "$logfile" >&2 2>/dev/null || true
  exit 1
}

stop() {
  local pid
  pid=$(our_pid) || { rm -f "$pidfile"; return 0; }
  redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    alive "$pid" || { rm -f "$pidfile"; return 0; }
    sleep 0.1
  done
  say "redis-server (pid $pid) did not stop; killing it"
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) echo "redis://127.0.0.1:$port" ;;
  *) say "usage: scripts/redis.sh start|stop|url"; exit 2 ;;
esac
