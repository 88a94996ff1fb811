#!/bin/bash
# Private PostgreSQL clusters of an engine build (docs/SCALING.md), by hand: never the machine's own.
#   scripts/engine-cluster.sh start timescaledb DIR PORT       one node on PORT
#   scripts/engine-cluster.sh start citus DIR PORT [WORKERS]   a coordinator on PORT, WORKERS (2) workers on PORT+1...
#   scripts/engine-cluster.sh add-worker DIR PORT N            a Citus worker on PORT+N, added to the coordinator's databases
#   scripts/engine-cluster.sh stop DIR
# The build: TIMESCALEDB_PG_CONFIG or CITUS_PG_CONFIG (its pg_config). As root the servers run as postgres.
# ENGINE_CONF: lines appended to every node's postgresql.conf, after the defaults below (a later
# line wins), e.g. the settings of the server a side-by-side compares with.
set -euo pipefail
cmd=${1:?start|add-worker|stop}
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

node() { # DIR PORT PRELOAD
  local dir=$1 port=$2 preload=$3
  as_pg "$BIN/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 --locale=C --no-sync >/dev/null
  cat >>"$dir/postgresql.conf" <<EOF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$(dirname "$dir")'
shared_preload_libraries = '$preload'
max_connections = 200
shared_buffers = 256MB
fsync = off
full_page_writes = off
synchronous_commit = off
citus.enable_create_database_propagation = on
timescaledb.telemetry_level = off
EOF
  [ -z "${ENGINE_CONF:-}" ] || printf '%s\n' "$ENGINE_CONF" >>"$dir/postgresql.conf"
  [ "$preload" = citus ] || sed -i '/^citus\./d' "$dir/postgresql.conf"
  [ "$preload" = timescaledb ] || sed -i '/^timescaledb\./d' "$dir/postgresql.conf"
  as_pg "$BIN/pg_ctl" -D "$dir" -l "$dir.log" -w -t 60 start >/dev/null
}

psql_at() { "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -p "$@"; }

case "$cmd" in
  start)
    engine=${2:?timescaledb|citus}; dir=${3:?DIR}; port=${4:?PORT}; workers=${5:-2}
    case "$engine" in
      timescaledb) BIN=$("${TIMESCALEDB_PG_CONFIG:?set TIMESCALEDB_PG_CONFIG}" --bindir) ;;
      citus) BIN=$("${CITUS_PG_CONFIG:?set CITUS_PG_CONFIG}" --bindir) ;;
      *) echo "unknown engine $engine" >&2; exit 2 ;;
    esac
    mkdir -p "$dir"; [ "$(id -u)" = 0 ] && chown postgres "$dir"
    echo "$BIN" >"$dir/bin"
    node "$dir/n0" "$port" "$engine"
    if [ "$engine" = citus ]; then
      for i in $(seq 1 "$workers"); do node "$dir/n$i" $((port + i)) citus; psql_at $((port + i)) -c 'CREATE EXTENSION citus'; done
      psql_at "$port" -c 'CREATE EXTENSION citus' -c "SELECT citus_set_coordinator_host('127.0.0.1', $port)"
      for i in $(seq 1 "$workers"); do psql_at "$port" -c "SELECT citus_add_node('127.0.0.1', $((port + i)))" >/dev/null; done
    fi
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  add-worker)
    dir=${2:?DIR}; port=${3:?PORT}; n=${4:?N}; BIN=$(cat "$dir/bin")
    node "$dir/n$n" $((port + n)) citus
    for db in $(psql_at "$port" -At -c "SELECT datname FROM pg_database WHERE datname NOT LIKE 'template%'"); do
      # Citus copies the databases to a node added to the first one; create only what is missing.
      psql_at $((port + n)) -At -c "SELECT 1 FROM pg_database WHERE datname = '$db'" | grep -q 1 || psql_at $((port + n)) -c "CREATE DATABASE \"$db\""
      psql_at $((port + n)) -d "$db" -c 'CREATE EXTENSION IF NOT EXISTS citus'
      if psql_at "$port" -d "$db" -At -c "SELECT 1 FROM pg_extension WHERE extname = 'citus'" | grep -q 1; then
        psql_at "$port" -d "$db" -c "SELECT citus_add_node('127.0.0.1', $((port + n)))" >/dev/null
      fi
    done
    ;;
  stop)
    dir=${2:?DIR}; BIN=$(cat "$dir/bin")
    for d in "$dir"/n*; do [ -f "$d/postmaster.pid" ] && as_pg "$BIN/pg_ctl" -D "$d" -m fast -w stop >/dev/null || true; done
    ;;
  *) echo "usage: $0 start|add-worker|stop ..." >&2; exit 2 ;;
esac
